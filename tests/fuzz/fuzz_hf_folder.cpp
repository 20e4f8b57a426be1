// A Hugging Face folder from anywhere: the input is config.json and model.safetensors joined
// by a NUL byte. The loader must reject it with pyramid::Error or load it.
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <string_view>

#include <spdlog/spdlog.h>

#include "model/model_loader.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const std::filesystem::path folder = [] {
        spdlog::set_level(spdlog::level::off);
        auto dir = std::filesystem::temp_directory_path() / ("pyramid-fuzz-hf-" + std::to_string(getpid()));
        std::filesystem::create_directories(dir);
        return dir;
    }();
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const size_t split = input.find('\0');
    const std::string_view config = input.substr(0, split);
    const std::string_view weights = split == std::string_view::npos ? std::string_view{} : input.substr(split + 1);
    std::ofstream(folder / "config.json", std::ios::binary | std::ios::trunc).write(config.data(), config.size());
    std::ofstream(folder / "model.safetensors", std::ios::binary | std::ios::trunc).write(weights.data(), weights.size());
    try {
        (void)pyramid::load_model_files(folder);
    } catch (const pyramid::Error&) {
    }
    return 0;
}
