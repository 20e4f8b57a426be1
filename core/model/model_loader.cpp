#include "model/model_loader.h"

#include <cstdint>
#include <cstring>
#include <fstream>

#include "model/gguf_model.h"
#include "model/hf_model.h"
#include "util/error.h"

namespace pyramid {

LoadedModel load_model_files(const std::filesystem::path& path, const std::function<void(double)>& progress)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status))
        throw Error(path.string() + ": no such file or folder");

    LoadedModel model;
    if (fs::is_directory(status)) {
        model = load_hf_model(path, progress);
    } else if (!fs::is_regular_file(status)) {
        // A FIFO or a device would block or never end: only files and folders are models.
        throw Error(path.string() + ": not a regular file or a folder");
    } else {
        char magic[4] = {};
        std::ifstream in(path, std::ios::binary);
        if (!in.read(magic, 4) || std::memcmp(magic, "GGUF", 4) != 0)
            throw Error(path.string() + ": not a GGUF file or a Hugging Face model folder");
        model = load_gguf_model(path, progress);
    }
    if (progress)
        progress(1.0);
    return model;
}

bool may_hold_model(const std::filesystem::path& gguf_file)
{
    // GGUF v2 and v3 start: magic "GGUF", uint32 version, uint64 tensor count (little-endian).
    unsigned char header[16] = {};
    std::error_code ec;
    if (!std::filesystem::is_regular_file(gguf_file, ec))
        return !std::filesystem::exists(gguf_file, ec);  // a FIFO would block the read; say so when loaded
    std::ifstream in(gguf_file, std::ios::binary);
    if (!in.read(reinterpret_cast<char*>(header), sizeof header) || std::memcmp(header, "GGUF", 4) != 0)
        return true;
    const auto little_endian = [&](int offset, int bytes) {
        uint64_t value = 0;
        for (int i = bytes - 1; i >= 0; --i)
            value = value << 8 | header[offset + i];
        return value;
    };
    return little_endian(4, 4) < 2 || little_endian(8, 8) > 0;
}

} // namespace pyramid
