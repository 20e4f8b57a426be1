#pragma once
// What the decode-path matvecs (quant_matvec.h for quantized weights, half_matvec.h for fp16
// ones) take besides their activations: how many input rows one launch multiplies, and the
// matrices that share one launch because they multiply the same x (q, k and v; gate and up).
#include <cstdint>

namespace pyramid::cuda {

// Most input rows one call takes (the accumulators live in registers); more go through the
// GEMM paths of projection.h.
constexpr int kMaxMatvecRows = 8;

// Up to kMaxMatvecParts matrices of one storage and width that multiply the same x, each into
// its own y: one launch instead of one each, each row computed as it would be alone.
constexpr int kMaxMatvecParts = 3;
struct MatvecPart {
    const void* weights = nullptr;  // [rows, cols] as the matvec reads them: raw blocks or fp16
    int64_t rows = 0;
    float* y = nullptr;  // float32 [n, rows]
};
struct MatvecParts {
    MatvecPart part[kMaxMatvecParts];
    int count = 0;
};

} // namespace pyramid::cuda
