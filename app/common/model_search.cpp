#include "model_search.h"

#include <algorithm>
#include <cstdlib>

#include "util/error.h"
#include "util/logging.h"

namespace pyramid {

std::vector<std::filesystem::path> default_model_candidates()
{
    if (const char* env = std::getenv("PYRAMID_MODEL"); env && *env)
        return {std::filesystem::path(env)};
    std::vector<std::filesystem::path> out;
    const auto user_models = user_data_dir() / "models";
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(user_models, ec))
        if (entry.path().extension() == ".gguf" || std::filesystem::exists(entry.path() / "config.json"))
            out.push_back(entry.path());
    std::sort(out.begin(), out.end());  // directory order is arbitrary
    out.push_back(std::filesystem::path(PYRAMID_SHARED_DIR) / "models" / "stories260K.gguf");
    return out;
}

std::optional<std::filesystem::path> find_default_model()
{
    if (const char* env = std::getenv("PYRAMID_MODEL"); env && *env && !std::filesystem::exists(env))
        throw Error(std::string("PYRAMID_MODEL is ") + env + ", which does not exist");
    for (const auto& path : default_model_candidates())
        if (std::filesystem::exists(path))
            return path;
    return std::nullopt;
}

} // namespace pyramid
