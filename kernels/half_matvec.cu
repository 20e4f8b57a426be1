#include "half_matvec.h"

#include <algorithm>
#include <string>

#include "kernel_launch.cuh"
#include "matvec_rows.cuh"

namespace pyramid::cuda {
namespace {

constexpr int kHalvesPerLoad = 8;  // one 16-byte load

__device__ __forceinline__ float low_half(uint32_t word) { return __half2float(__ushort_as_half(uint16_t(word))); }
__device__ __forceinline__ float high_half(uint32_t word)
{
    return __half2float(__ushort_as_half(uint16_t(word >> 16)));
}

// The dot product of eight fp16 weights and eight fp16 activations (16 bytes each), in float32,
// element by element in order.
__device__ __forceinline__ float dot8(const uint4& w, const uint4& x)
{
    const uint32_t ws[4] = {w.x, w.y, w.z, w.w}, xs[4] = {x.x, x.y, x.z, x.w};
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        sum += low_half(ws[i]) * low_half(xs[i]);
        sum += high_half(ws[i]) * high_half(xs[i]);
    }
    return sum;
}

// kRows: the most input rows the launch may have. A lane takes 16-byte load i, i + 32, ... of
// its warp's row and issues kInFlight of them before the first product: eight at one row (a
// decode step's), four at more, whose activations take registers too. x: [n, cols] as
// 16-byte loads, cols / 8 a row.
template <int kRows>
__global__ void __launch_bounds__(kMatvecWarps * 32)
    half_matvec_kernel(MatvecParts parts, int64_t cols, const uint4* x, int n, float beta, bool prefetch_weights)
{
    if (prefetch_weights)
        prefetch_block_rows(this_part(parts).weights, this_part(parts).rows, cols * int64_t(sizeof(__half)));
    wait_for_prior_grids();
    constexpr int kInFlight = kRows == 1 ? 8 : 4;
    const int lane = threadIdx.x % 32;
    const int64_t r = matvec_row();
    const MatvecPart part = this_part(parts);
    if (r >= part.rows)  // whole warps leave together, so the shuffles below stay full-warp
        return;
    const int64_t loads = cols / kHalvesPerLoad;
    const uint4* row = static_cast<const uint4*>(part.weights) + r * loads;
    float acc[kMaxMatvecRows] = {};
    for (int64_t i0 = lane; i0 < loads; i0 += kInFlight * 32) {
        // Past the row's end a lane loads its first piece again (and adds nothing): no branch
        // around the loads, so all of them are issued before the first is waited on.
        uint4 w[kInFlight];
#pragma unroll
        for (int j = 0; j < kInFlight; ++j) {
            const int64_t i = i0 + j * 32;
            w[j] = row[i < loads ? i : i0];
        }
#pragma unroll
        for (int j = 0; j < kInFlight; ++j) {
            const int64_t i = i0 + j * 32;
            if (i >= loads)
                break;
#pragma unroll
            for (int t = 0; t < kRows; ++t)
                if (t < n)
                    acc[t] += dot8(w[j], x[t * loads + i]);
        }
    }
    write_row_sums(acc, n, lane, part.y, part.rows, r, beta);
}

} // namespace

bool half_matvec_fits(const void* weights, int64_t cols, const void* x)
{
    return cols > 0 && cols % kHalvesPerLoad == 0 && reinterpret_cast<uintptr_t>(weights) % 16 == 0 &&
           reinterpret_cast<uintptr_t>(x) % 16 == 0;
}

void half_matvec(const MatvecParts& parts, int64_t cols, const void* x, int n, float beta, KernelStream stream)
{
    if (n > kMaxMatvecRows)
        throw Error("half_matvec: " + std::to_string(n) + " input rows, at most " + std::to_string(kMaxMatvecRows));
    if (parts.count < 1 || parts.count > kMaxMatvecParts)
        throw Error("half_matvec: " + std::to_string(parts.count) + " matrices in one launch");
    int64_t most_rows = 0;
    for (int i = 0; i < parts.count; ++i) {
        if (!half_matvec_fits(parts.part[i].weights, cols, x))
            throw Error("half_matvec: weights and activations must start at 16-byte aligned addresses, with rows of "
                        "a multiple of 8 values (got " +
                        std::to_string(cols) + ")");
        most_rows = std::max(most_rows, parts.part[i].rows);
    }
    if (n <= 0 || most_rows == 0)
        return;
    // Grid y: the parts; x: the rows of the longest (a shorter part's extra warps leave at once).
    const dim3 grid(matvec_grid(most_rows), static_cast<unsigned>(parts.count));
    const auto kernel = n == 1 ? half_matvec_kernel<1> : half_matvec_kernel<kMaxMatvecRows>;
    launch_kernel(kernel, grid, kMatvecWarps * 32, 0, stream, parts, cols, static_cast<const uint4*>(x), n, beta,
                  stream.overlap_prior);
    check_launch("half_matvec");
}

void half_matvec(const void* weights, int64_t rows, int64_t cols, const void* x, int n, float* y, float beta,
                 KernelStream stream)
{
    MatvecParts one;
    one.part[0] = {weights, rows, y};
    one.count = 1;
    half_matvec(one, cols, x, n, beta, stream);
}

} // namespace pyramid::cuda
