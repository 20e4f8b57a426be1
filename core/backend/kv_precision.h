#pragma once
// How the CPU backend stores its KV cache. The cache is what grows with the conversation: on
// LLaMA-2-7B a token takes 512 KiB in float32, 256 KiB in fp16 (as the CUDA backend and
// llama.cpp store it). float32 is the reference the golden results are reproduced with.
#include <cstddef>
#include <string>

namespace pyramid {

enum class KvPrecision { F32, F16 };

KvPrecision parse_kv_precision(const std::string& text);  // "f32", "f16"; throws pyramid::Error
const char* kv_precision_name(KvPrecision precision);     // "f32", "f16"
size_t kv_element_bytes(KvPrecision precision);           // 4, 2

} // namespace pyramid
