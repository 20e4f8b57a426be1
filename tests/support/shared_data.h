#pragma once
// Where tests find ../shared (models, golden files). Tests QSKIP with this message when a
// file is missing, so a checkout without the shared data still runs the rest.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "model/default_model.h"
#include "util/logging.h"

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

// The default chat model where scripts/setup.sh puts it (SmolLM2-135M-Instruct in the
// user's models folder).
inline std::filesystem::path default_model_path()
{
    return user_data_dir() / "models" / std::string(kDefaultModelFile);
}

} // namespace pyramid::test

// Inside a Qt Test slot: skip unless the shared file exists; yields its path.
#define PYRAMID_REQUIRE_SHARED(var, relative)                                              \
    const std::filesystem::path var = ::pyramid::test::shared_path(relative);              \
    if (!std::filesystem::exists(var))                                                     \
        QSKIP(::pyramid::test::missing_message(var).c_str())

// Inside a Qt Test slot: skip unless the default chat model is installed; yields its path.
#define PYRAMID_REQUIRE_DEFAULT_MODEL(var)                                                   \
    const std::filesystem::path var = ::pyramid::test::default_model_path();                 \
    if (!std::filesystem::exists(var))                                                       \
        QSKIP(("the default model is not installed: " + var.string() + " (scripts/setup.sh fetches it)").c_str())
