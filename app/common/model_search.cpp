#include "model_search.h"

#include <cstdlib>

#include "util/logging.h"

namespace pyramid {

std::vector<std::filesystem::path> default_model_candidates()
{
    std::vector<std::filesystem::path> out;
    if (const char* env = std::getenv("PYRAMID_MODEL"); env && *env)
        out.emplace_back(env);
    const auto user_models = user_data_dir() / "models";
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(user_models, ec))
        if (entry.path().extension() == ".gguf" || std::filesystem::exists(entry.path() / "config.json"))
            out.push_back(entry.path());
    out.push_back(std::filesystem::path(PYRAMID_SHARED_DIR) / "models" / "stories260K.gguf");
    return out;
}

std::optional<std::filesystem::path> find_default_model()
{
    for (const auto& path : default_model_candidates())
        if (std::filesystem::exists(path))
            return path;
    return std::nullopt;
}

} // namespace pyramid
