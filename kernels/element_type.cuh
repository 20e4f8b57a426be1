#pragma once
// Device-side conversions between the storage element types (half, float) and float32,
// and the warp reductions the kernels share.
#include <cuda_fp16.h>

#include <cstdint>

#include "backend/cuda_backend_options.h"

namespace pyramid::cuda {

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }

template <typename T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) { return x; }
template <>
__device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }

// Two fp16 values as one 32-bit word, `low` in the low half (its lower address in memory).
__device__ __forceinline__ uint32_t pack_half2(__half low, __half high)
{
    return uint32_t(__half_as_ushort(low)) | uint32_t(__half_as_ushort(high)) << 16;
}

constexpr unsigned kFullWarp = 0xffffffffu;

__device__ __forceinline__ float warp_sum(float x)
{
    for (int offset = 16; offset > 0; offset /= 2)
        x += __shfl_xor_sync(kFullWarp, x, offset);
    return x;
}

__device__ __forceinline__ float warp_max(float x)
{
    for (int offset = 16; offset > 0; offset /= 2)
        x = fmaxf(x, __shfl_xor_sync(kFullWarp, x, offset));
    return x;
}

// Host-side: calls f with a null pointer of the element type `p` stands for, so one launcher
// instantiates the kernel for both precisions: dispatch(p, [&](auto* tag) { using T = ...; }).
template <typename F>
void dispatch(Precision p, F&& f)
{
    if (p == Precision::Fp16)
        f(static_cast<__half*>(nullptr));
    else
        f(static_cast<float*>(nullptr));
}

} // namespace pyramid::cuda
