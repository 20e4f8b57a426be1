#pragma once
// The CUDA device built-ins the kernels use, for compiling kernels/*.cu as host C++ against
// the emulated device (force-included before each source; see CMakeLists.txt). Thread and
// block indices, barriers and the warp-synchronous calls go to the block scheduler; the
// rounding intrinsics are plain IEEE float operations (the build turns off contraction into
// fused multiply-adds, as __fmul_rn and friends promise on the GPU).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "emulation/block_scheduler.h"

#undef __global__
#undef __device__
#undef __host__
#undef __forceinline__
#undef __shared__
#undef __launch_bounds__
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
// Blocks run one at a time on one host thread, so a function's statics are exactly the running
// block's shared memory.
#define __shared__ static

#define threadIdx (::pyramid::cuda::emulation::current_thread().thread_idx)
#define blockIdx (::pyramid::cuda::emulation::current_thread().block_idx)
#define blockDim (::pyramid::cuda::emulation::current_thread().block_dim)
#define gridDim (::pyramid::cuda::emulation::current_thread().grid_dim)
constexpr int warpSize = 32;

inline void __syncthreads(std::source_location site = std::source_location::current())
{
    ::pyramid::cuda::emulation::sync_block(site);
}

inline void __syncwarp(unsigned mask = 0xffffffffu)
{
    ::pyramid::cuda::emulation::exchange_in_warp("__syncwarp", mask, nullptr, 0);
}

namespace pyramid::cuda::emulation {

// The value of lane `source` (the caller's own where source is negative), for __shfl*_sync;
// `width` is the segment size the caller passed, which must be a power of two up to 32.
template <typename T>
T shuffle(const char* operation, unsigned mask, T value, int source, int width)
{
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= kExchangeBytes);
    if (width <= 0 || width > 32 || (width & (width - 1)) != 0)
        kernel_fault(std::string(operation) + ": width " + std::to_string(width) + " is not a power of two up to 32");
    const unsigned char* all = exchange_in_warp(operation, mask, &value, sizeof(T));
    if (source < 0)
        return value;
    if (!(mask >> source & 1u))
        kernel_fault(std::string(operation) + " reads lane " + std::to_string(source) + ", which its mask leaves out");
    T out;
    std::memcpy(&out, all + static_cast<size_t>(source) * kExchangeBytes, sizeof(T));
    return out;
}

inline int lane() { return static_cast<int>(current_lane()); }

} // namespace pyramid::cuda::emulation

// Source lanes as the CUDA programming guide defines them for each variant.
template <typename T>
T __shfl_sync(unsigned mask, T value, int source_lane, int width = 32)
{
    const int lane = ::pyramid::cuda::emulation::lane();
    return ::pyramid::cuda::emulation::shuffle("__shfl_sync", mask, value,
                                               (lane & ~(width - 1)) + (source_lane & (width - 1)), width);
}

template <typename T>
T __shfl_xor_sync(unsigned mask, T value, int lane_mask, int width = 32)
{
    const int lane = ::pyramid::cuda::emulation::lane(), source = lane ^ lane_mask;
    const bool later_segment = source >= (lane & ~(width - 1)) + width;
    return ::pyramid::cuda::emulation::shuffle("__shfl_xor_sync", mask, value, later_segment ? -1 : source, width);
}

template <typename T>
T __shfl_up_sync(unsigned mask, T value, unsigned delta, int width = 32)
{
    const int lane = ::pyramid::cuda::emulation::lane(), d = static_cast<int>(delta);
    return ::pyramid::cuda::emulation::shuffle("__shfl_up_sync", mask, value, (lane & (width - 1)) < d ? -1 : lane - d,
                                               width);
}

template <typename T>
T __shfl_down_sync(unsigned mask, T value, unsigned delta, int width = 32)
{
    const int lane = ::pyramid::cuda::emulation::lane(), d = static_cast<int>(delta);
    return ::pyramid::cuda::emulation::shuffle("__shfl_down_sync", mask, value,
                                               (lane & (width - 1)) + d >= width ? -1 : lane + d, width);
}

inline unsigned __ballot_sync(unsigned mask, int predicate)
{
    const unsigned char bit = predicate != 0;
    const unsigned char* all = ::pyramid::cuda::emulation::exchange_in_warp("__ballot_sync", mask, &bit, 1);
    unsigned out = 0;
    for (unsigned l = 0; l < 32; ++l)
        if ((mask >> l & 1u) && all[l * ::pyramid::cuda::emulation::kExchangeBytes] == 1)
            out |= 1u << l;
    return out;
}

template <typename T>
unsigned __match_any_sync(unsigned mask, T value)
{
    static_assert(std::is_integral_v<T> && sizeof(T) <= 8);
    const unsigned char* all =
        ::pyramid::cuda::emulation::exchange_in_warp("__match_any_sync", mask, &value, sizeof(T));
    unsigned out = 0;
    for (unsigned l = 0; l < 32; ++l) {
        T other;
        std::memcpy(&other, all + l * ::pyramid::cuda::emulation::kExchangeBytes, sizeof(T));
        if ((mask >> l & 1u) && other == value)
            out |= 1u << l;
    }
    return out;
}

// Fibers of one host thread never run at the same time: a read-modify-write is atomic.
template <typename T>
T atomicAdd(T* address, T value)
{
    const T old = *address;
    *address = old + value;
    return old;
}

inline int __popc(unsigned x) { return std::popcount(x); }
inline int __popcll(unsigned long long x) { return std::popcount(x); }
inline int __ffs(int x) { return x == 0 ? 0 : std::countr_zero(static_cast<unsigned>(x)) + 1; }
inline int __clz(int x) { return std::countl_zero(static_cast<unsigned>(x)); }
inline unsigned __float_as_uint(float x) { return std::bit_cast<unsigned>(x); }
inline float __uint_as_float(unsigned x) { return std::bit_cast<float>(x); }
inline int __float_as_int(float x) { return std::bit_cast<int>(x); }
inline float __int_as_float(int x) { return std::bit_cast<float>(x); }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __expf(float x) { return std::exp(x); }
// Round to nearest, ties to even, as the default floating-point environment rounds.
inline int __float2int_rn(float x) { return static_cast<int>(std::nearbyint(x)); }
// c + the sum of the products of a's and b's four signed bytes.
inline int __dp4a(int a, int b, int c)
{
    for (int i = 0; i < 32; i += 8)
        c += static_cast<int8_t>(a >> i) * static_cast<int8_t>(b >> i);
    return c;
}

inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }

// cuda_runtime.h declares its typed overload for nvcc only.
template <typename T>
cudaError_t cudaFuncSetAttribute(T* kernel, cudaFuncAttribute attribute, int value)
{
    return ::cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), attribute, value);
}
