#include "quant_matvec.h"

#include <type_traits>

#include "k4_words.cuh"
#include "kernel_launch.cuh"
#include "matvec_rows.cuh"

namespace pyramid::cuda {
namespace {

template <typename B, typename X>
__global__ void __launch_bounds__(kMatvecWarps * 32)
    quant_matvec_kernel(const uint8_t* blocks, int64_t rows, int64_t cols, const X* x, int n, float* y, float beta,
                        bool prefetch_weights)
{
    if (prefetch_weights)
        prefetch_block_rows(blocks, rows, cols / B::kElems * B::kBytes);
    wait_for_prior_grids();
    const int lane = threadIdx.x % 32;
    const int64_t r = matvec_row();
    if (r >= rows)  // whole warps leave together, so the shuffles below stay full-warp
        return;
    const int64_t first_block = r * (cols / B::kElems);  // of the row, counted through the matrix
    float acc[kMaxMatvecRows] = {};
    // Two stretches per pass: the second's loads are issued before the first's products wait
    // on memory, which a memory-bound walk of one row per warp needs.
#pragma unroll 2
    for (int64_t c0 = int64_t(lane) * 8; c0 < cols; c0 += kMatvecStretch) {
        float w[8];
        quant::decode8<B>(B::locate(blocks, first_block + c0 / B::kElems), int(c0 % B::kElems), w);
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

// Q4_K and Q5_K in 32-bit words (k4_words.cuh). Needs, for the activations, 16-byte (float)
// or 8-byte (half) aligned rows.
template <typename X, bool kFifthBit>
__global__ void __launch_bounds__(kMatvecWarps * 32)
    k4_matvec_kernel(const uint32_t* words, int64_t rows, int64_t cols, const X* x, int n, float* y, float beta,
                     bool prefetch_weights)
{
    if (prefetch_weights)
        prefetch_block_rows(words, rows, cols / 256 * kK4BlockWords<kFifthBit> * int64_t(sizeof(uint32_t)));
    wait_for_prior_grids();
    const int lane = threadIdx.x % 32;
    const int64_t r = matvec_row();
    if (r >= rows)  // whole warps leave together, so the shuffles below stay full-warp
        return;
    const int64_t blocks = cols / 256;
    const uint32_t* row = words + r * blocks * kK4BlockWords<kFifthBit>;
    const int first = k4_first_element(lane);
    float acc[kMaxMatvecRows] = {};
#pragma unroll 2  // two blocks' loads in flight, as in quant_matvec_kernel
    for (int64_t b = 0; b < blocks; ++b) {
        const K4Lane l = k4_lane<kFifthBit>(row + b * kK4BlockWords<kFifthBit>, lane);
        // As decode8 of Q4_K/Q5_K: element = (d * scale) * q - dmin * min, rounded the same way.
        float w[8];
#pragma unroll
        for (int u = 0; u < 2; ++u) {
            const float d1 = __fmul_rn(l.d, quant::small_float(l.groups.scale[u]));
            const float m1 = __fmul_rn(l.dmin, quant::small_float(l.groups.min[u]));
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const uint32_t v = ((l.q >> (8 * i + 4 * u)) & 0x0fu) | (((l.qh >> (8 * i + u)) & 1u) << 4);
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
                  int n, float* y, float beta, KernelStream stream)
{
    const unsigned grid = matvec_grid(rows);
    const bool words_fit = aligned(blocks, 4) && aligned(x, x_type == Precision::Fp16 ? 8 : 16);
    dispatch(x_type, [&](auto* tag) {
        using X = std::remove_pointer_t<decltype(tag)>;
        launch_matvec(
            "quant_matvec", type, blocks, rows, cols, n, words_fit,
            [&](bool q5_k) {
                launch_kernel(q5_k ? k4_matvec_kernel<X, true> : k4_matvec_kernel<X, false>, grid,
                              kMatvecWarps * 32, 0, stream, static_cast<const uint32_t*>(blocks), rows, cols,
                              static_cast<const X*>(x), n, y, beta, stream.overlap_prior);
            },
            [&](auto block) {
                launch_kernel(quant_matvec_kernel<decltype(block), X>, grid, kMatvecWarps * 32, 0, stream,
                              static_cast<const uint8_t*>(blocks), rows, cols, static_cast<const X*>(x), n, y, beta,
                              stream.overlap_prior);
            });
    });
}

} // namespace pyramid::cuda
