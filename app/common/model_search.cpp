#include "model_search.h"

#include <algorithm>
#include <cstdlib>

#include "model/model_loader.h"
#include "util/error.h"
#include "util/logging.h"

namespace pyramid {

namespace {

const char* model_from_environment()
{
    const char* env = std::getenv("PYRAMID_MODEL");
    return env && *env ? env : nullptr;
}

std::vector<std::filesystem::path> models_in(const std::filesystem::path& dir)
{
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
        if (entry.path().extension() == ".gguf" ? may_hold_model(entry.path())
                                                : std::filesystem::exists(entry.path() / "config.json"))
            out.push_back(entry.path());
    std::sort(out.begin(), out.end());  // directory order is arbitrary
    return out;
}

std::string folder_list()
{
    std::string out;
    for (const auto& dir : default_model_dirs())
        out += (out.empty() ? "" : " and ") + dir.string();
    return out;
}

} // namespace

std::vector<std::filesystem::path> default_model_dirs()
{
    return {user_data_dir() / "models", std::filesystem::path(PYRAMID_SHARED_DIR) / "models"};
}

std::vector<std::filesystem::path> default_model_candidates()
{
    if (const char* env = model_from_environment())
        return {std::filesystem::path(env)};
    const auto dirs = default_model_dirs();
    std::vector<std::filesystem::path> out = models_in(dirs[0]);
    const auto bundled = dirs[1] / "stories260K.gguf";
    if (std::filesystem::exists(bundled))
        out.push_back(bundled);
    for (const auto& path : models_in(dirs[1]))
        if (path != bundled)
            out.push_back(path);
    return out;
}

std::filesystem::path find_default_model()
{
    if (const char* env = model_from_environment(); env && !std::filesystem::exists(env))
        throw Error(std::string("PYRAMID_MODEL is ") + env + ", which does not exist");
    const auto candidates = default_model_candidates();
    if (candidates.empty())
        throw Error("no model given, and none found in " + folder_list() +
                    ": put a GGUF file or a Hugging Face folder there, or name one with --model");
    return candidates.front();
}

std::string default_model_help()
{
    return "default: $PYRAMID_MODEL, else the first model in " + folder_list();
}

} // namespace pyramid
