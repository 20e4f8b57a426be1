#pragma once
// Where tests find ../shared (models, golden files). Tests QSKIP with this message when a
// file is missing, so a checkout without the shared data still runs the rest.
#include <cstdlib>
#include <filesystem>
#include <string>

namespace pyramid::test {

// PYRAMID_SHARED_DIR in the environment overrides the folder built in (test programs built on
// one machine and run on another, as scripts/gpu-run.sh does).
inline std::filesystem::path shared_path(const std::string& relative)
{
    const char* dir = std::getenv("PYRAMID_SHARED_DIR");
    return std::filesystem::path(dir && *dir ? dir : PYRAMID_SHARED_DIR) / relative;
}

inline std::string missing_message(const std::filesystem::path& path)
{
    return "shared data not found: " + path.string() + " (tests read ../shared beside the checkout)";
}

} // namespace pyramid::test

// Inside a Qt Test slot: skip unless the shared file exists; yields its path.
#define PYRAMID_REQUIRE_SHARED(var, relative)                                              \
    const std::filesystem::path var = ::pyramid::test::shared_path(relative);              \
    if (!std::filesystem::exists(var))                                                     \
        QSKIP(::pyramid::test::missing_message(var).c_str())
