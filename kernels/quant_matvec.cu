#include "quant_matvec.h"

#include <string>
#include <type_traits>

#include "cuda_check.h"
#include "element_type.cuh"
#include "kernel_launch.cuh"
#include "quant_blocks.cuh"

namespace pyramid::cuda {
namespace {

constexpr int kWarpsPerBlock = 4;
constexpr int kStretch = 32 * 8;  // elements a warp covers per step: eight per lane

// y[t, r] = the warp's sum of acc[t] (+ beta y[t, r]) for t < n, written by lane 0.
__device__ __forceinline__ void write_row_sums(const float (&acc)[kMaxMatvecRows], int n, int lane, float* y,
                                               int64_t rows, int64_t r, float beta)
{
#pragma unroll
    for (int t = 0; t < kMaxMatvecRows; ++t) {
        if (t < n) {
            const float total = warp_sum(acc[t]);
            if (lane == 0) {
                float* out = y + int64_t(t) * rows + r;
                *out = beta == 0.0f ? total : total + beta * *out;
            }
        }
    }
}

template <typename B, typename X>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    quant_matvec_kernel(const uint8_t* blocks, int64_t rows, int64_t cols, const X* x, int n, float* y, float beta)
{
    const int lane = threadIdx.x % 32;
    const int64_t r = int64_t(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
    if (r >= rows)  // whole warps leave together, so the shuffles below stay full-warp
        return;
    const int64_t row_bytes = cols / B::kElems * B::kBytes;
    const uint8_t* row = blocks + r * row_bytes;
    float acc[kMaxMatvecRows];
#pragma unroll
    for (int t = 0; t < kMaxMatvecRows; ++t)
        acc[t] = 0.0f;
    // Two stretches per pass: the second's loads are issued before the first's products wait
    // on memory, which a memory-bound walk of one row per warp needs.
#pragma unroll 2
    for (int64_t c0 = int64_t(lane) * 8; c0 < cols; c0 += kStretch) {
        float w[8];
        B::decode8(row + c0 / B::kElems * B::kBytes, int(c0 % B::kElems), w);
#pragma unroll
        for (int t = 0; t < kMaxMatvecRows; ++t) {
            if (t < n) {
                const X* xt = x + int64_t(t) * cols + c0;
                float sum = acc[t];
#pragma unroll
                for (int i = 0; i < 8; ++i)
                    sum += w[i] * to_float(xt[i]);
                acc[t] = sum;
            }
        }
    }
    write_row_sums(acc, n, lane, y, rows, r, beta);
}

// Four consecutive activations as floats (p 16-byte aligned for float, 8 for half).
__device__ __forceinline__ void load4(const float* p, float (&v)[4])
{
    const float4 f = *reinterpret_cast<const float4*>(p);
    v[0] = f.x;
    v[1] = f.y;
    v[2] = f.z;
    v[3] = f.w;
}

__device__ __forceinline__ void load4(const __half* p, float (&v)[4])
{
    const float2 a = __half22float2(reinterpret_cast<const __half2*>(p)[0]);
    const float2 b = __half22float2(reinterpret_cast<const __half2*>(p)[1]);
    v[0] = a.x;
    v[1] = a.y;
    v[2] = b.x;
    v[3] = b.y;
}

// Q4_K and Q5_K, the types most of a Q4_K_M or Q5_K_M model's bytes are in, read in 32-bit
// words: a block is d and dmin (1 word), 3 words of packed scales and mins, for Q5_K 8 words of
// fifth bits (qh), then 32 words of quants; lane i takes quant word i, bytes 4i..4i+3 of the
// 128: chunk c = i / 8 of 64 elements, whose low nibbles are elements 64c + 4(i % 8) + 0..3
// (group 2c) and high nibbles the same 32 further on (group 2c + 1). Their fifth bits are bits
// 2c and 2c + 1 of the same bytes of qh, word i % 8. So a warp's quant loads are one coalesced
// 128-byte line per block, and every lane unpacks its two groups' scales and mins from the
// same 3 words with masks instead of byte loads.
// Needs 4-byte aligned rows (whole 144- or 176-byte blocks from an aligned start) and, for the
// activations, 16-byte (float) or 8-byte (half) aligned rows.
template <typename X, bool kFifthBit>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    k4_matvec_kernel(const uint32_t* words, int64_t rows, int64_t cols, const X* x, int n, float* y, float beta)
{
    constexpr int kQhWords = kFifthBit ? 8 : 0;
    constexpr int kBlockWords = 36 + kQhWords;
    const int lane = threadIdx.x % 32;
    const int64_t r = int64_t(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
    if (r >= rows)  // whole warps leave together, so the shuffles below stay full-warp
        return;
    const int64_t blocks = cols / 256;
    const uint32_t* row = words + r * blocks * kBlockWords;
    const int chunk = lane / 8;
    const int first = 64 * chunk + 4 * (lane % 8);  // of the low group; the high one is 32 on
    const int byte_shift = 8 * (2 * chunk % 4);     // of groups 2c, 2c + 1 in their 4-group word
    float acc[kMaxMatvecRows];
#pragma unroll
    for (int t = 0; t < kMaxMatvecRows; ++t)
        acc[t] = 0.0f;
#pragma unroll 2  // two blocks' loads in flight, as in quant_matvec_kernel
    for (int64_t b = 0; b < blocks; ++b) {
        const uint32_t* blk = row + b * kBlockWords;
        const uint32_t dm = blk[0], w0 = blk[1], w1 = blk[2], w2 = blk[3];
        const uint32_t q = blk[4 + kQhWords + lane];
        // Q5_K: bit 0 of each byte the fifth bit in group 2c, bit 1 in group 2c + 1.
        const uint32_t qh = kFifthBit ? blk[4 + lane % 8] >> (2 * chunk) : 0;
        // Scales 0-3 and mins 0-3 are the low 6 bits of w0 and w1; groups 4-7 take the low
        // (scales) or high (mins) nibbles of w2 and the top 2 bits of w0 (scales) or w1 (mins).
        const uint32_t scales = chunk < 2 ? w0 & 0x3f3f3f3fu : (w2 & 0x0f0f0f0fu) | ((w0 >> 2) & 0x30303030u);
        const uint32_t mins = chunk < 2 ? w1 & 0x3f3f3f3fu : ((w2 >> 4) & 0x0f0f0f0fu) | ((w1 >> 2) & 0x30303030u);
        const float d = __half2float(__ushort_as_half(static_cast<unsigned short>(dm & 0xffffu)));
        const float dmin = __half2float(__ushort_as_half(static_cast<unsigned short>(dm >> 16)));
        // As Block<Q4_K/Q5_K>::decode8: element = (d * scale) * q - dmin * min, rounded the same way.
        float w[8];
#pragma unroll
        for (int u = 0; u < 2; ++u) {
            const float d1 = __fmul_rn(d, quant::small_float((scales >> (byte_shift + 8 * u)) & 0xffu));
            const float m1 = __fmul_rn(dmin, quant::small_float((mins >> (byte_shift + 8 * u)) & 0xffu));
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const uint32_t v = ((q >> (8 * i + 4 * u)) & 0x0fu) | (((qh >> (8 * i + u)) & 1u) << 4);
                w[4 * u + i] = __fsub_rn(__fmul_rn(d1, quant::small_float(v)), m1);
            }
        }
#pragma unroll
        for (int t = 0; t < kMaxMatvecRows; ++t) {
            if (t < n) {
                const X* xt = x + int64_t(t) * cols + 256 * b + first;
                float low[4], high[4];
                load4(xt, low);
                load4(xt + 32, high);
                float sum = acc[t];
#pragma unroll
                for (int i = 0; i < 4; ++i)
                    sum += w[i] * low[i] + w[4 + i] * high[i];
                acc[t] = sum;
            }
        }
    }
    write_row_sums(acc, n, lane, y, rows, r, beta);
}

bool aligned(const void* p, size_t bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

} // namespace

void quant_matvec(TensorType type, const void* blocks, int64_t rows, int64_t cols, const void* x, Precision x_type,
                  int n, float* y, float beta, cudaStream_t stream)
{
    if (n <= 0 || rows == 0)
        return;
    if (n > kMaxMatvecRows)
        throw Error("quant_matvec: " + std::to_string(n) + " input rows, at most " + std::to_string(kMaxMatvecRows));
    const int grid = static_cast<int>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
    if ((type == TensorType::Q4_K || type == TensorType::Q5_K) && cols % 256 == 0 && aligned(blocks, 4) &&
        aligned(x, x_type == Precision::Fp16 ? 8 : 16)) {
        dispatch(x_type, [&](auto* tag) {
            using X = std::remove_pointer_t<decltype(tag)>;
            const auto kernel = type == TensorType::Q5_K ? k4_matvec_kernel<X, true> : k4_matvec_kernel<X, false>;
            launch_kernel(kernel, grid, kWarpsPerBlock * 32, 0, stream, static_cast<const uint32_t*>(blocks), rows,
                          cols, static_cast<const X*>(x), n, y, beta);
        });
        check_launch("k4_matvec_kernel");
        return;
    }
    const bool known = quant::dispatch_block(type, [&](auto block) {
        using B = decltype(block);
        if (cols % B::kElems != 0)
            throw Error("quant_matvec: rows of " + std::to_string(cols) + " elements are not whole " +
                        std::string(tensor_type_traits(type).name) + " blocks");
        dispatch(x_type, [&](auto* tag) {
            using X = std::remove_pointer_t<decltype(tag)>;
            launch_kernel(quant_matvec_kernel<B, X>, grid, kWarpsPerBlock * 32, 0, stream,
                          static_cast<const uint8_t*>(blocks), rows, cols, static_cast<const X*>(x), n, y, beta);
        });
    });
    if (!known)
        throw Error("quant_matvec: tensor type " + std::string(tensor_type_traits(type).name) +
                    " is not a quantized block type");
    check_launch("quant_matvec_kernel");
}

} // namespace pyramid::cuda
