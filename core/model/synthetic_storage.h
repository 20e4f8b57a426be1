#pragma once
// How generated weights (model/synthetic_weights.h) store their matrices: one type for every
// matrix, or one of the llama.cpp k-quant mixes most LLaMA-2-Chat downloads use, so a
// benchmark can run a 7B "Q4_K_M" model without the file.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/tensor_type.h"

namespace pyramid {

struct SyntheticStorage {
    // One type for every matrix (implicit: a plain type is a storage).
    SyntheticStorage(TensorType type = TensorType::F16, bool mix = false) : base(type), medium_mix(mix) {}

    TensorType base;
    // llama.cpp's "_M" mixes (Q4_K_M, Q5_K_M): the base type, but Q6_K for the output matrix
    // and for attn_v and ffn_down of the layers llama.cpp gives more bits (the first and last
    // eighth of the layers, and every third one between).
    bool medium_mix;

    // "f32", "f16", "bf16", a quantized type ("q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_k",
    // "q3_k", "q4_k", "q5_k", "q6_k") or a mix ("q4_k_m", "q5_k_m"). Throws pyramid::Error
    // naming the known names.
    static SyntheticStorage parse(std::string_view name);
    std::string name() const;
    bool quantized() const;

    // llama.cpp's LLAMA_FTYPE number for a GGUF file of this storage (general.file_type):
    // 0 F32, 1 F16, 32 BF16, 2 Q4_0, 3 Q4_1, 8 Q5_0, 9 Q5_1, 7 Q8_0, 10 Q2_K, 18 Q6_K, 15 Q4_K_M,
    // 17 Q5_K_M. Empty for Q3_K, Q4_K and Q5_K alone, which llama.cpp's _S/_M/_L mixes never
    // store alone.
    std::optional<uint32_t> llama_file_type() const;

    // The type of generated tensor number `tensor` (model/synthetic_value.h) of a model with
    // n_layers layers; norm vectors are F32.
    TensorType type_of(uint32_t tensor, int n_layers) const;
};

} // namespace pyramid
