#pragma once
// How much memory this process holds, from /proc/self/statm (Linux).
#include <cstdint>
#include <optional>

// Resident set size in bytes; nullopt where /proc is not readable.
std::optional<int64_t> residentMemoryBytes();
