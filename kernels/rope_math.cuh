#pragma once
// The RoPE rotation shared by the query/key kernel and the key re-rotation of shifted cache
// entries. The angle is formed in double precision, as the CPU reference does: positions reach
// the thousands, where a float angle would be off by ~1e-4 rad.
#include "model/model_config.h"

namespace pyramid::cuda {

// Element offsets of pair i inside a head: (i * pair_step, i * pair_step + stride_in_pair).
// Adjacent elements in GGUF layout, the two halves in Hugging Face layout.
struct RopePairs {
    int stride_in_pair;
    int pair_step;
};

inline RopePairs rope_pairs(RopeLayout layout, int head_dim)
{
    return layout == RopeLayout::Interleaved ? RopePairs{1, 2} : RopePairs{head_dim / 2, 1};
}

// Rotates (a, b), pair i of a head, by `position` steps.
__device__ __forceinline__ void rope_rotate(float& a, float& b, int position, int i, int head_dim, float theta)
{
    const double freq = pow(double(theta), -2.0 * i / head_dim);
    double s, c;
    sincos(double(position) * freq, &s, &c);
    const float cosine = float(c), sine = float(s);
    const float a0 = a, b0 = b;
    a = a0 * cosine - b0 * sine;
    b = a0 * sine + b0 * cosine;
}

} // namespace pyramid::cuda
