#pragma once
// Reader for GGUF v2/v3 files (the format of llama.cpp and ggml): metadata, tensor
// descriptions and the memory-mapped tensor data.
//
// Everything is validated while parsing, before it is used or allocated for: counts against
// the bytes left in the file, string lengths, tensor shapes (overflow-checked), types, data
// ranges and alignment. Any defect throws pyramid::Error naming the file and the problem.
#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "model/tensor_type.h"
#include "util/mapped_file.h"

namespace pyramid {

// Metadata value types, numbered as GGUF numbers them.
enum class GgufType : uint32_t {
    UInt8 = 0,
    Int8 = 1,
    UInt16 = 2,
    Int16 = 3,
    UInt32 = 4,
    Int32 = 5,
    Float32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    UInt64 = 10,
    Int64 = 11,
    Float64 = 12,
};

std::string_view gguf_type_name(GgufType type);

class GgufArray;

// One metadata value. Strings are views into the mapped file, which the GgufFile keeps alive.
struct GgufValue {
    GgufType type = GgufType::UInt8;
    // Unsigned integers as uint64_t, signed as int64_t, floats as double (exact for
    // float32), Bool, String, Array.
    std::variant<uint64_t, int64_t, double, bool, std::string_view, std::shared_ptr<const GgufArray>> value;

    // Each is empty when the value is not of that kind (or, for as_int, does not fit int64).
    std::optional<int64_t> as_int() const;  // any integer type
    std::optional<double> as_float() const; // float or integer types
    std::optional<bool> as_bool() const;
    std::optional<std::string_view> as_string() const;
    const GgufArray* as_array() const;
};

// An array value. Fixed-size elements stay packed in the file and are decoded on access, so a
// long array costs no more memory than its file bytes.
class GgufArray {
public:
    GgufType element_type() const { return element_type_; }
    size_t size() const { return count_; }
    GgufValue at(size_t i) const;  // i < size()

private:
    friend class GgufParser;
    GgufType element_type_ = GgufType::UInt8;
    size_t count_ = 0;
    const std::byte* packed_ = nullptr;       // numbers and bools
    std::vector<std::string_view> strings_;   // element_type_ == String
    std::vector<GgufValue> arrays_;           // element_type_ == Array (nested arrays)
};

struct GgufTensorInfo {
    std::string name;
    TensorType type = TensorType::F32;
    int n_dims = 0;
    std::array<int64_t, 4> ne{1, 1, 1, 1};  // ggml order: ne[0] is the contiguous row length
    uint64_t offset = 0;                    // from the start of the data section
    size_t nbytes = 0;
    const std::byte* data = nullptr;        // into the mapped file

    int64_t elements() const { return ne[0] * ne[1] * ne[2] * ne[3]; }
};

class GgufFile {
public:
    // Maps and parses the file; throws pyramid::Error on any defect.
    static GgufFile open(const std::filesystem::path& path);

    const std::filesystem::path& path() const { return file_->path(); }
    const std::shared_ptr<const MappedFile>& mapping() const { return file_; }
    uint32_t version() const { return version_; }
    uint32_t alignment() const { return alignment_; }
    uint64_t data_offset() const { return data_offset_; }  // absolute offset of tensor data

    const std::vector<std::pair<std::string_view, GgufValue>>& metadata() const { return metadata_; }
    const GgufValue* find(std::string_view key) const;  // nullptr when absent

    // Typed look-ups: empty when the key is absent; throw pyramid::Error naming the key when
    // it holds a value of another kind.
    std::optional<int64_t> get_int(std::string_view key) const;
    std::optional<double> get_float(std::string_view key) const;
    std::optional<bool> get_bool(std::string_view key) const;
    std::optional<std::string_view> get_string(std::string_view key) const;
    const GgufArray* get_array(std::string_view key) const;

    const std::vector<GgufTensorInfo>& tensors() const { return tensors_; }
    const GgufTensorInfo* find_tensor(std::string_view name) const;  // nullptr when absent

private:
    friend class GgufParser;
    [[noreturn]] void wrong_type(std::string_view key, const GgufValue& v, const char* wanted) const;

    std::shared_ptr<const MappedFile> file_;
    uint32_t version_ = 0;
    uint32_t alignment_ = 32;
    uint64_t data_offset_ = 0;
    std::vector<std::pair<std::string_view, GgufValue>> metadata_;
    std::unordered_map<std::string_view, size_t> key_index_;
    std::vector<GgufTensorInfo> tensors_;
    std::unordered_map<std::string, size_t> tensor_index_;
};

} // namespace pyramid
