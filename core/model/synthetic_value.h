#pragma once
// The values of generated ("synthetic") weights, shared by the host generator
// (model/synthetic_weights.cpp) and the CUDA backend's kernel (kernels/synthetic_ops.cu).
//
// The generator is counter-based: element `index` of tensor number `tensor` is a pure function
// of (seed, tensor, index), so any thread on the host or the GPU computes any element on its
// own, in any order, and gets the same float. Only integer operations and one correctly rounded
// float multiplication are involved, so host and device agree bit for bit.
//
// Tensor numbers (the same whatever the storage type or where the values are made):
//   0 token_embedding, 1 output, 2 output_norm,
//   3 + 9 * layer + k for the fields of LayerWeights in declaration order:
//   k = 0 attn_norm, 1 wq, 2 wk, 3 wv, 4 wo, 5 ffn_norm, 6 w_gate, 7 w_up, 8 w_down.
//
// Scales: a matrix with `cols` input features is uniform in [-s, s] with s = 1/sqrt(cols).
// Its variance is s^2/3, so a projection of a unit-RMS input has outputs of variance 1/3
// whatever the width: activations stay bounded through any number of layers. Norm vectors
// are exactly 1.0 (no values are generated for them).
#include <cmath>
#include <cstdint>

#include "util/host_device.h"

namespace pyramid::synthetic {

inline constexpr uint32_t kTokenEmbedding = 0;
inline constexpr uint32_t kOutput = 1;
inline constexpr uint32_t kOutputNorm = 2;
inline constexpr uint32_t kFirstLayerTensor = 3;
inline constexpr uint32_t kTensorsPerLayer = 9;

// The k-th LayerWeights field of `layer` (see the numbering above).
PYRAMID_HOST_DEVICE constexpr uint32_t layer_tensor(int layer, int k)
{
    return kFirstLayerTensor + kTensorsPerLayer * static_cast<uint32_t>(layer) + static_cast<uint32_t>(k);
}

// Of a layer tensor (tensor >= kFirstLayerTensor): its layer, and its LayerWeights field k.
PYRAMID_HOST_DEVICE constexpr int tensor_layer(uint32_t tensor)
{
    return static_cast<int>((tensor - kFirstLayerTensor) / kTensorsPerLayer);
}
PYRAMID_HOST_DEVICE constexpr int tensor_field(uint32_t tensor)
{
    return static_cast<int>((tensor - kFirstLayerTensor) % kTensorsPerLayer);
}

// Norm vectors (output_norm, attn_norm, ffn_norm) hold kNormValue; all other tensors are
// matrices of generated values.
inline constexpr float kNormValue = 1.0f;
PYRAMID_HOST_DEVICE constexpr bool is_norm_tensor(uint32_t tensor)
{
    if (tensor < kFirstLayerTensor)
        return tensor == kOutputNorm;
    const int k = tensor_field(tensor);
    return k == 0 || k == 5;
}

// Computed once on the host and handed to kernels as a float, so both sides scale by the
// same number (device square roots and divisions depend on compiler flags).
inline float matrix_scale(int64_t cols) { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(cols))); }

// splitmix64's output function: a bijection of 64 bits in which every input bit affects
// every output bit.
PYRAMID_HOST_DEVICE inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

inline constexpr uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ull;  // 2^64 / golden ratio, odd

// The stream of one tensor: hoisted out of the per-element loop.
PYRAMID_HOST_DEVICE inline uint64_t tensor_key(uint64_t seed, uint32_t tensor)
{
    return mix64(seed ^ mix64(kGoldenGamma * (static_cast<uint64_t>(tensor) + 1)));
}

// A float in (-1, 1): the top 24 bits as an odd integer in [-(2^24 - 1), 2^24 - 1] (exactly
// representable), times 2^-24 (exact). Symmetric, so the mean over all outcomes is exactly 0.
PYRAMID_HOST_DEVICE inline float unit_value(uint64_t bits)
{
    const int32_t u = static_cast<int32_t>(bits >> 40);
    return static_cast<float>(2 * u - 0xffffff) * 0x1p-24f;
}

// Element `index` (row-major: row * cols + col) of the tensor with this key: uniform in
// [-scale, scale].
PYRAMID_HOST_DEVICE inline float value(uint64_t key, uint64_t index, float scale)
{
    const float u = unit_value(mix64(key + kGoldenGamma * (index + 1)));
#if defined(__CUDA_ARCH__)
    return __fmul_rn(u, scale);  // a plain multiply could be fused into a neighbouring add
#else
    return u * scale;
#endif
}

} // namespace pyramid::synthetic
