#pragma once
// How the CPU backend stores its KV cache, keys and values each in their own type. The cache is
// what grows with the conversation: on LLaMA-2-7B (32 layers, keys and values of 4096 values) a
// token takes 1 MiB in float32, 512 KiB in fp16 (as the CUDA backend and llama.cpp store it),
// 272 KiB in q8 and 144 KiB in q4 (kv_entry_types.h has the blocks). float32 is the reference the golden results are
// reproduced with. Keys and values can be set apart: which half tolerates fewer bits depends on
// the model (on SmolLM2-135M q8 values cost 0.3% perplexity, q8 keys nothing measurable;
// docs/quality/kv-types.md).
#include <cstddef>
#include <string>

namespace pyramid {

enum class KvPrecision {
    F32,
    F16,
    Q8,  // 8-bit codes, one fp16 scale per 32 values (kv_entry_types.h)
    Q4,  // 4-bit codes, one fp16 scale per 32 values
};

// "f32", "f16", "q8", "q4"; throws pyramid::Error naming the known ones.
KvPrecision parse_kv_precision(const std::string& text);
const char* kv_precision_name(KvPrecision precision);

// Bytes of one stored value: 4 and 2 for f32 and f16. Quantized types store a scale per block
// of values and have no whole number of bytes per value: they throw pyramid::Error (use
// kv_row_bytes).
size_t kv_element_bytes(KvPrecision precision);

// Bytes of `values` stored values, scales included; `values` must be a whole number of the
// type's blocks (kv_values_fit), else pyramid::Error.
size_t kv_row_bytes(KvPrecision precision, int values);
// Whether one head's row of `head_dim` values can be stored as `precision`: always for f32 and
// f16; for q8 and q4 when head_dim is a multiple of their 32-value block.
bool kv_values_fit(KvPrecision precision, int head_dim);

// The types of a cache's keys and of its values. One precision converts to both.
struct KvTypes {
    KvTypes(KvPrecision both = KvPrecision::F32) : k(both), v(both) {}
    KvTypes(KvPrecision k, KvPrecision v) : k(k), v(v) {}
    KvPrecision k;
    KvPrecision v;

    // Spelled out, not defaulted: the CUDA sources (C++17) include this header.
    bool operator==(const KvTypes& o) const { return k == o.k && v == o.v; }
    bool operator!=(const KvTypes& o) const { return !(*this == o); }
};

// "q8" when keys and values agree, else "K q8, V f16".
std::string kv_types_name(const KvTypes& types);

// One layer's key and value of one token: n_kv_heads rows of head_dim values each for keys and
// for values. Throws pyramid::Error where a type does not fit head_dim (kv_values_fit).
size_t kv_entry_bytes(const KvTypes& types, int n_kv_heads, int head_dim);

} // namespace pyramid
