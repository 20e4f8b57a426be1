#pragma once
// Writes GGUF files byte by byte for tests, including deliberately broken ones: every count,
// length, type and offset can be overridden with a value the real writer would never produce.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pyramid::test {

// Little-endian byte sink.
struct Bytes {
    std::string data;
    void u8(uint8_t v) { data.push_back(static_cast<char>(v)); }
    void u32(uint32_t v) { raw(&v, 4); }
    void u64(uint64_t v) { raw(&v, 8); }
    void f32(float v) { raw(&v, 4); }
    void str(const std::string& s) { u64(s.size()); data += s; }
    void raw(const void* p, size_t n) { data.append(static_cast<const char*>(p), n); }
};

struct GgufTensorSpec {
    std::string name;
    std::vector<uint64_t> ne;     // ggml order
    uint32_t type = 0;            // ggml type id
    std::string bytes;            // the tensor data as placed in the file
    std::optional<uint64_t> offset;  // written instead of the real (aligned) offset
    std::optional<uint32_t> n_dims;  // written instead of ne.size()
};

class GgufBuilder {
public:
    uint32_t version = 3;
    uint32_t alignment = 32;                 // padding used when laying out data
    std::optional<uint64_t> n_kv_override;
    std::optional<uint64_t> n_tensors_override;

    // Metadata entries, in order. `add_raw` writes a key, a type id and payload bytes as given.
    void add_raw(const std::string& key, uint32_t type, const std::string& payload);
    void add_string(const std::string& key, const std::string& value);
    void add_u32(const std::string& key, uint32_t value);
    void add_f32(const std::string& key, float value);
    void add_bool(const std::string& key, bool value);
    void add_string_array(const std::string& key, const std::vector<std::string>& values);
    void add_f32_array(const std::string& key, const std::vector<float>& values);
    void add_i32_array(const std::string& key, const std::vector<int32_t>& values);
    void remove_key(const std::string& key);

    void add_tensor(GgufTensorSpec spec) { tensors.push_back(std::move(spec)); }
    GgufTensorSpec* tensor(const std::string& name);
    void remove_tensor(const std::string& name);

    std::string build() const;

    std::vector<std::pair<std::string, std::string>> entries;  // key -> encoded type + payload
    std::vector<GgufTensorSpec> tensors;
};

// Float32 values as bytes.
std::string f32_bytes(const std::vector<float>& values);

// A complete, valid LLaMA GGUF model small enough to build in microseconds: dim 32, 4 heads,
// 2 KV heads, ffn 64, `layers` layers, vocabulary of 8 tokens, all weights F32 with
// deterministic values, tokenizer embedded, output.weight present.
GgufBuilder tiny_llama_gguf(int layers = 1);

} // namespace pyramid::test
