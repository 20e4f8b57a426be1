#pragma once
// Reader for one .safetensors file (Hugging Face): an 8-byte little-endian header length, a
// JSON header describing each tensor, then the raw tensor bytes, used in place from a map.
//
// The header is fully validated on open: JSON syntax, every entry's dtype, shape and data
// offsets, byte sizes against dtype and shape, and ranges inside the file without overlap.
// Defects throw pyramid::Error naming the file and the entry.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/tensor_type.h"
#include "util/mapped_file.h"

namespace pyramid {

struct SafetensorsTensor {
    std::string name;
    std::string dtype;               // as written: "F32", "BF16", "I64", ...
    std::optional<TensorType> type;  // F32, F16 or BF16; empty for dtypes weights never use
    std::vector<int64_t> shape;      // PyTorch order: the last dimension is contiguous
    size_t nbytes = 0;
    const std::byte* data = nullptr;  // into the mapped file; may be unaligned
};

class SafetensorsFile {
public:
    static SafetensorsFile open(const std::filesystem::path& path);

    const std::filesystem::path& path() const { return file_->path(); }
    const std::shared_ptr<const MappedFile>& mapping() const { return file_; }
    const std::vector<SafetensorsTensor>& tensors() const { return tensors_; }
    const SafetensorsTensor* find(std::string_view name) const;  // nullptr when absent

private:
    std::shared_ptr<const MappedFile> file_;
    std::vector<SafetensorsTensor> tensors_;
    std::unordered_map<std::string, size_t> index_;
};

} // namespace pyramid
