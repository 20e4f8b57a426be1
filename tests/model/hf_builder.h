#pragma once
// Writes Hugging Face model files for tests: .safetensors files (re-packed real tensors,
// shards, misaligned data, hand-written and possibly broken headers) and a tiny LLaMA model.
#include <cstdint>
#include <string>
#include <vector>

namespace pyramid {
class SafetensorsFile;
}

namespace pyramid::test {

struct SafetensorsEntry {
    std::string name;
    std::string dtype;
    std::vector<int64_t> shape;
    std::string bytes;
};

// All tensors of a file, copied out.
std::vector<SafetensorsEntry> safetensors_entries(const SafetensorsFile& file);

// A file holding the entries back to back. The header is padded with spaces so the data
// starts at a multiple of 8 bytes, or, with `misaligned`, one byte past one.
std::string safetensors_bytes(const std::vector<SafetensorsEntry>& entries, bool misaligned = false);

// The 8-byte length, the header text as given, then the data.
std::string safetensors_raw(const std::string& header, const std::string& data);

// The same tiny LLaMA as tiny_llama_gguf (dim 32, 4 heads, 2 KV heads, ffn 64, vocab 8,
// `layers` layers) in Hugging Face names and shapes, F32, and its config.json.
std::vector<SafetensorsEntry> tiny_llama_hf_entries(int layers = 1);
std::string tiny_llama_hf_config(int layers = 1);

} // namespace pyramid::test
