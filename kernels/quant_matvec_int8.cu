#include "quant_matvec.h"

#include <algorithm>
#include <string>

#include "k4_words.cuh"
#include "kernel_launch.cuh"
#include "matvec_rows.cuh"

namespace pyramid::cuda {
namespace {

constexpr uint32_t kOnes = 0x01010101u;  // dp4a with it sums four signed bytes

// Part blockIdx.y of the launch (grid y: one per part). Picked by constant indices: a kernel
// parameter indexed by a register would be copied to local memory.
__device__ __forceinline__ MatvecPart this_part(const MatvecParts& parts)
{
    static_assert(kMaxMatvecParts == 3, "this_part picks among three parts");
    const unsigned i = blockIdx.y;
    return i == 0 ? parts.part[0] : i == 1 ? parts.part[1] : parts.part[2];
}

// The lane's eight rounded activations of row t from element c (a multiple of 8), and the
// factors of their block of 32.
__device__ __forceinline__ int2 quants_at(const Int8Rows& x, int t, int64_t c)
{
    return *reinterpret_cast<const int2*>(x.q + int64_t(t) * x.cols + c);
}

__device__ __forceinline__ float2 factors_at(const Int8Rows& x, int t, int64_t c)
{
    return x.factors[(int64_t(t) * x.cols + c) / kInt8Block];
}

// Every type: a lane takes eight consecutive elements of one block per step, as
// quant_matvec_kernel does. Element = a * (quant - kOffset) + m and activation = scale * xq, so
// the eight products are scale * (a * (sum quant * xq - kOffset * sum xq) + m * sum xq), the
// sums exact in integers.
template <typename B>
__global__ void __launch_bounds__(kMatvecWarps * 32)
    quant_matvec_int8_kernel(MatvecParts parts, int64_t cols, Int8Rows x, int n, float beta)
{
    const int lane = threadIdx.x % 32;
    const int64_t r = matvec_row();
    if (r >= this_part(parts).rows)  // whole warps leave together, so the shuffles below stay full-warp
        return;
    const uint8_t* row = static_cast<const uint8_t*>(this_part(parts).blocks) + r * (cols / B::kElems * B::kBytes);
    float acc[kMaxMatvecRows] = {};
#pragma unroll 2
    for (int64_t c0 = int64_t(lane) * 8; c0 < cols; c0 += kMatvecStretch) {
        uint32_t q[2];
        float a, m = 0.0f;
        B::quants8(row + c0 / B::kElems * B::kBytes, int(c0 % B::kElems), q, a, m);
#pragma unroll
        for (int t = 0; t < kMaxMatvecRows; ++t) {
            if (t < n) {
                const int2 xq = quants_at(x, t, c0);
                const int dot = __dp4a(int(q[0]), xq.x, __dp4a(int(q[1]), xq.y, 0));
                float part;
                if constexpr (B::kOffset != 0 || B::kHasMin) {
                    const int sum = __dp4a(int(kOnes), xq.x, __dp4a(int(kOnes), xq.y, 0));
                    part = a * float(dot - B::kOffset * sum) + m * float(sum);
                } else {
                    part = a * float(dot);
                }
                acc[t] += factors_at(x, t, c0).x * part;
            }
        }
    }
    write_row_sums(acc, n, lane, this_part(parts).y, this_part(parts).rows, r, beta);
}

// Q4_K and Q5_K in 32-bit words (k4_words.cuh). A group's elements are d1 * q - m1, so the
// group adds d1 * scale * (sum q * xq) over its eight lanes and, once (its first lane), m1
// times its activation block's scale * sum xq (the block is the group: both are 32 elements
// from a multiple of 32).
template <bool kFifthBit>
__global__ void __launch_bounds__(kMatvecWarps * 32)
    k4_matvec_int8_kernel(MatvecParts parts, int64_t cols, Int8Rows x, int n, float beta)
{
    const int lane = threadIdx.x % 32;
    const int64_t r = matvec_row();
    if (r >= this_part(parts).rows)  // whole warps leave together, so the shuffles below stay full-warp
        return;
    const int64_t blocks = cols / 256;
    const uint32_t* row = static_cast<const uint32_t*>(this_part(parts).blocks) + r * blocks * kK4BlockWords<kFifthBit>;
    const int first = k4_first_element(lane);
    const bool adds_minimum = lane % 8 == 0;
    float acc[kMaxMatvecRows] = {};
#pragma unroll 2
    for (int64_t b = 0; b < blocks; ++b) {
        const K4Lane l = k4_lane<kFifthBit>(row + b * kK4BlockWords<kFifthBit>, lane);
        const uint32_t low = (l.q & 0x0f0f0f0fu) | ((l.qh & kOnes) << 4);
        const uint32_t high = ((l.q >> 4) & 0x0f0f0f0fu) | (((l.qh >> 1) & kOnes) << 4);
        float d1[2], m1[2];
#pragma unroll
        for (int u = 0; u < 2; ++u) {
            d1[u] = l.d * quant::small_float(l.scale[u]);
            m1[u] = adds_minimum ? l.dmin * quant::small_float(l.min[u]) : 0.0f;
        }
#pragma unroll
        for (int t = 0; t < kMaxMatvecRows; ++t) {
            if (t < n) {
                const int64_t c = 256 * b + first;
                const int8_t* xt = x.q + int64_t(t) * cols + c;
                const int x_low = *reinterpret_cast<const int*>(xt), x_high = *reinterpret_cast<const int*>(xt + 32);
                const float2 f_low = factors_at(x, t, c), f_high = factors_at(x, t, c + 32);
                acc[t] += f_low.x * d1[0] * float(__dp4a(int(low), x_low, 0)) - m1[0] * f_low.y +
                          f_high.x * d1[1] * float(__dp4a(int(high), x_high, 0)) - m1[1] * f_high.y;
            }
        }
    }
    write_row_sums(acc, n, lane, this_part(parts).y, this_part(parts).rows, r, beta);
}

} // namespace

void quant_matvec_int8(TensorType type, const MatvecParts& parts, int64_t cols, const Int8Rows& x, int n, float beta,
                       cudaStream_t stream)
{
    if (x.cols != cols)
        throw Error("quant_matvec_int8: activations of " + std::to_string(x.cols) + " values for rows of " +
                    std::to_string(cols));
    if (parts.count < 1 || parts.count > kMaxMatvecParts)
        throw Error("quant_matvec_int8: " + std::to_string(parts.count) + " matrices in one launch");
    int64_t most_rows = 0;
    bool words_fit = true;
    for (int i = 0; i < parts.count; ++i) {
        most_rows = std::max(most_rows, parts.part[i].rows);
        words_fit = words_fit && reinterpret_cast<uintptr_t>(parts.part[i].blocks) % 4 == 0;
        if (i > 0)
            quant::check_block_alignment(parts.part[i].blocks, "quant_matvec_int8");
    }
    // Grid y: the parts; x: the rows of the longest (a shorter part's extra warps leave at once).
    const dim3 grid(matvec_grid(most_rows), static_cast<unsigned>(parts.count));
    launch_matvec(
        "quant_matvec_int8", type, parts.part[0].blocks, most_rows, cols, n, words_fit,
        [&](bool q5_k) {
            launch_kernel(q5_k ? k4_matvec_int8_kernel<true> : k4_matvec_int8_kernel<false>, grid, kMatvecWarps * 32,
                          0, stream, parts, cols, x, n, beta);
        },
        [&](auto block) {
            launch_kernel(quant_matvec_int8_kernel<decltype(block)>, grid, kMatvecWarps * 32, 0, stream, parts, cols, x,
                          n, beta);
        });
}

void quant_matvec_int8(TensorType type, const void* blocks, int64_t rows, int64_t cols, const Int8Rows& x, int n,
                       float* y, float beta, cudaStream_t stream)
{
    MatvecParts one;
    one.part[0] = {blocks, rows, y};
    one.count = 1;
    quant_matvec_int8(type, one, cols, x, n, beta, stream);
}

} // namespace pyramid::cuda
