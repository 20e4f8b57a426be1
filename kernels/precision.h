#pragma once
// The number format the CUDA backend stores weights, key/value entries and matrix inputs in.
// Accumulation, softmax, norms and the residual stream are float32 in both.
//   Fp16: half the memory and tensor-core matrix products; logits within ~1e-3 of float32.
//   Fp32: twice the memory, no tensor cores; agrees with the CPU backend to float rounding
//         (used to check the kernels against golden files bit for bit in their decisions).
#include <cstddef>
#include <string>

namespace pyramid::cuda {

enum class Precision { Fp16, Fp32 };

inline size_t element_bytes(Precision p) { return p == Precision::Fp16 ? 2 : 4; }
inline const char* precision_name(Precision p) { return p == Precision::Fp16 ? "fp16" : "fp32"; }

// "fp16" or "fp32"; throws pyramid::Error for anything else.
Precision parse_precision(const std::string& text);

} // namespace pyramid::cuda
