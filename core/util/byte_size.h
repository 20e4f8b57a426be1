#pragma once
// Sizes in messages and reports: in the largest binary unit that leaves a number of at least
// one ("512 bytes", "2.0 KiB", "12.6 MiB", "3.80 GiB").
#include <cstdint>
#include <string>

namespace pyramid {

std::string byte_size_text(uint64_t bytes);

} // namespace pyramid
