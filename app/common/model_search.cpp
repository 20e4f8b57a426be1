#include "model_search.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "model/default_model.h"
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

// A .gguf file worth choosing without being named: one this user can read, that starts as a
// GGUF file and holds tensors. may_hold_model alone passes files it cannot read or that are no
// GGUF at all, so that a model named on purpose fails with the loader's message; a search
// passes them over instead (the first name in a folder must not decide that nothing runs).
bool readable_gguf(const std::filesystem::path& path)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        return false;  // a FIFO would block the read
    std::ifstream in(path, std::ios::binary);
    char magic[4] = {};
    return in.read(magic, sizeof magic) && std::memcmp(magic, "GGUF", 4) == 0 && may_hold_model(path);
}

// The models in `dir`: the default model, then the bundled test model, then the others in
// name order (directory order is arbitrary).
std::vector<std::filesystem::path> models_in(const std::filesystem::path& dir)
{
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
        if (entry.path().extension() == ".gguf" ? readable_gguf(entry.path())
                                                : std::filesystem::exists(entry.path() / "config.json"))
            out.push_back(entry.path());
    const auto rank = [](const std::filesystem::path& p) {
        const std::string name = p.filename().string();
        return name == kDefaultModelFile ? 0 : name == kBundledTestModelFile ? 1 : 2;
    };
    std::sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
        return rank(a) != rank(b) ? rank(a) < rank(b) : a < b;
    });
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
    std::vector<std::filesystem::path> out;
    for (const auto& dir : default_model_dirs())
        for (auto& path : models_in(dir))
            out.push_back(std::move(path));
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
