#include "quant_matvec.h"

#include <algorithm>
#include <string>
#include <type_traits>

#include "block32_lines.cuh"
#include "k4_segments.cuh"
#include "kernel_launch.cuh"
#include "matvec_rows.cuh"
#include "q6k_lines.cuh"

namespace pyramid::cuda {
namespace {

constexpr uint32_t kOnes = 0x01010101u;  // dp4a with it sums four signed bytes

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

// The lane's eight weights from element c0 (quants and factors as B::quants8 gives them) times
// rows t < n of x. Element = a * (quant - kOffset) + m and activation = scale * xq, so the eight
// products are scale * (a * (sum quant * xq - kOffset * sum xq) + m * sum xq), the sums exact
// in integers.
template <typename B, int kRows>
__device__ __forceinline__ void add_eight(const uint32_t (&q)[2], float a, float m, int64_t c0, const Int8Rows& x,
                                          int n, float (&acc)[kMaxMatvecRows])
{
#pragma unroll
    for (int t = 0; t < kRows; ++t) {
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

// Every type: a lane takes eight consecutive elements of one block per step, as
// quant_matvec_kernel does. kRows: the most input rows the launch may have. A lane issues the
// loads of kInFlight steps before the first product: eight for one row (a decode step's; a
// 4096-wide row is 16 steps), two for more, whose activations' loads take the registers.
template <typename B, int kRows>
__global__ void __launch_bounds__(kMatvecWarps * 32)
    quant_matvec_int8_kernel(MatvecParts parts, int64_t cols, Int8Rows x, int n, float beta,
                             bool prefetch_weights)
{
    if (prefetch_weights)
        prefetch_block_rows(this_part(parts).weights, this_part(parts).rows, cols / B::kElems * B::kBytes);
    wait_for_prior_grids();
    constexpr int kInFlight = kRows == 1 ? 8 : 2;
    const int lane = threadIdx.x % 32;
    const int64_t r = matvec_row();
    if (r >= this_part(parts).rows)  // whole warps leave together, so the shuffles below stay full-warp
        return;
    const auto* weights = static_cast<const uint8_t*>(this_part(parts).weights);
    const int64_t first_block = r * (cols / B::kElems);  // of the row, counted through the matrix
    float acc[kMaxMatvecRows] = {};
    for (int64_t c0 = int64_t(lane) * 8; c0 < cols; c0 += kInFlight * kMatvecStretch) {
        // Past the row's end a lane reads its last eight again (and adds nothing): no branch
        // around the loads, so they can all be issued before the first is waited on.
        uint32_t q[kInFlight][2];
        float a[kInFlight], m[kInFlight] = {};
#pragma unroll
        for (int j = 0; j < kInFlight; ++j) {
            int64_t c = c0 + j * kMatvecStretch;
            c = c < cols ? c : c0 + (cols - 1 - c0) / kMatvecStretch * kMatvecStretch;
            B::quants8(B::locate(weights, first_block + c / B::kElems), int(c % B::kElems), q[j], a[j], m[j]);
        }
#pragma unroll
        for (int j = 0; j < kInFlight; ++j) {
            const int64_t c = c0 + j * kMatvecStretch;
            if (c < cols)
                add_eight<B, kRows>(q[j], a[j], m[j], c, x, n, acc);
        }
    }
    write_row_sums(acc, n, lane, this_part(parts).y, this_part(parts).rows, r, beta);
}

// The dot product of 16 quants (four words of four bytes) with 16 int8 activations.
__device__ __forceinline__ int dot16(const uint32_t (&q)[4], int4 x)
{
    return __dp4a(int(q[0]), x.x, __dp4a(int(q[1]), x.y, __dp4a(int(q[2]), x.z, __dp4a(int(q[3]), x.w, 0))));
}

// Q4_K and Q5_K in 16-byte segments (k4_segments.cuh): eight lanes a block, a warp four
// blocks a step. A group's elements are d1 * q - m1, so a lane adds d1 * scale * (sum q * xq)
// for its 16 elements of each of its two groups and, if it holds the first half of the groups
// (of two lanes), m1 times its activation block's scale * sum xq (the block is the group: both
// are 32 elements from a multiple of 32). The segment's element `first` of block b; rows t < n.
template <int kRows>
__device__ __forceinline__ void add_k4_segment(const K4Segment& s, int64_t b, int first, bool adds_minimum,
                                               const Int8Rows& x, int n, float (&acc)[kMaxMatvecRows])
{
    float d1[2], m1[2];
#pragma unroll
    for (int u = 0; u < 2; ++u) {
        d1[u] = s.d * quant::small_float(s.groups.scale[u]);
        m1[u] = adds_minimum ? s.dmin * quant::small_float(s.groups.min[u]) : 0.0f;
    }
#pragma unroll
    for (int t = 0; t < kRows; ++t) {
        if (t < n) {
            const int64_t c = 256 * b + first;
            const int8_t* xt = x.q + int64_t(t) * x.cols + c;
            const int4 x_low = *reinterpret_cast<const int4*>(xt), x_high = *reinterpret_cast<const int4*>(xt + 32);
            const int dot_low = dot16(s.low, x_low), dot_high = dot16(s.high, x_high);
            const float2 f_low = factors_at(x, t, c), f_high = factors_at(x, t, c + 32);
            acc[t] += f_low.x * d1[0] * float(dot_low) - m1[0] * f_low.y + f_high.x * d1[1] * float(dot_high) -
                      m1[1] * f_high.y;
        }
    }
}

// kRows: the most input rows the launch may have. A lane issues the loads of kInFlight blocks
// before the first product: four for one row (a decode step's; four steps cover a 4096-wide
// row, so all of a row's loads are in flight at once), two for more, whose activations' loads
// take the registers the others would.
template <bool kFifthBit, int kRows>
__global__ void __launch_bounds__(kMatvecWarps * 32)
    k4_matvec_int8_kernel(MatvecParts parts, int64_t cols, Int8Rows x, int n, float beta,
                             bool prefetch_weights)
{
    if (prefetch_weights)
        prefetch_block_rows(this_part(parts).weights, this_part(parts).rows,
                            cols / 256 * K4Layout<kFifthBit>::kBytes);
    wait_for_prior_grids();
    constexpr int kInFlight = kRows == 1 ? 4 : 2;
    const int lane = threadIdx.x % 32;
    const int64_t r = matvec_row();
    if (r >= this_part(parts).rows)  // whole warps leave together, so the shuffles below stay full-warp
        return;
    const int64_t blocks = cols / 256;
    constexpr int block_bytes = K4Layout<kFifthBit>::kBytes;
    const uint8_t* row = static_cast<const uint8_t*>(this_part(parts).weights) + r * blocks * block_bytes;
    const int segment = lane % kK4Segments;
    const int first = k4_segment_first_element(segment);
    const bool adds_minimum = segment % 2 == 0;
    float acc[kMaxMatvecRows] = {};
    walk_row_blocks<kK4Segments, kInFlight>(
        blocks, lane, [&](int64_t b) { return k4_segment_bytes<kFifthBit>(row + b * block_bytes, segment); },
        [&](const K4SegmentBytes& bytes, int64_t b) {
            add_k4_segment<kRows>(k4_segment(bytes, segment), b, first, adds_minimum, x, n, acc);
        });
    write_row_sums(acc, n, lane, this_part(parts).y, this_part(parts).rows, r, beta);
}

// The dot product of 16 quants q (0..63) less 32 with 16 int8 activations: the offset rides
// in the chain as bytes of -32, so the sum is exact in integers without unpacking signed quants.
__device__ __forceinline__ int dot16_less_32(const uint32_t (&q)[4], int4 x)
{
    constexpr int kMinus32 = int(0xe0e0e0e0u);
    int sum = __dp4a(int(q[0]), x.x, __dp4a(kMinus32, x.x, 0));
    sum = __dp4a(int(q[1]), x.y, __dp4a(kMinus32, x.y, sum));
    sum = __dp4a(int(q[2]), x.z, __dp4a(kMinus32, x.z, sum));
    return __dp4a(int(q[3]), x.w, __dp4a(kMinus32, x.w, sum));
}

// Block b of a Q6_K row through one lane (q6k_lines.cuh): each of its four runs of 16 elements
// lies in one activation block of 32, so the lane adds that block's scale * d * run scale *
// (sum (quant - 32) * xq), runs in order. Rows t < n.
template <int kRows>
__device__ __forceinline__ void add_q6k_block(const Q6KLineBytes& bytes, int64_t b, int lane_in_block,
                                              const Int8Rows& x, int n, float (&acc)[kMaxMatvecRows])
{
    uint32_t q[4][4];
    q6k_run<0>(bytes, q[0]);
    q6k_run<1>(bytes, q[1]);
    q6k_run<2>(bytes, q[2]);
    q6k_run<3>(bytes, q[3]);
    const float d1[4] = {q6k_run_scale<0>(bytes, lane_in_block), q6k_run_scale<1>(bytes, lane_in_block),
                         q6k_run_scale<2>(bytes, lane_in_block), q6k_run_scale<3>(bytes, lane_in_block)};
    const int64_t first = 256 * b + q6k_lane_first_element(lane_in_block);
#pragma unroll
    for (int t = 0; t < kRows; ++t) {
        if (t < n) {
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const int64_t c = first + 32 * k;
                const int4 xq = *reinterpret_cast<const int4*>(x.q + int64_t(t) * x.cols + c);
                acc[t] += factors_at(x, t, c).x * d1[k] * float(dot16_less_32(q[k], xq));
            }
        }
    }
}

// kRows: the most input rows the launch may have. A lane issues the loads of kInFlight blocks
// before the first product: two for one row (a 4096-wide row is two steps, so all of its loads
// are in flight at once, 3.7 KiB a warp), one for more, whose activations take the registers.
template <int kRows>
__global__ void __launch_bounds__(kMatvecWarps * 32)
    q6k_matvec_int8_kernel(MatvecParts parts, int64_t cols, Int8Rows x, int n, float beta,
                             bool prefetch_weights)
{
    if (prefetch_weights)
        prefetch_block_rows(this_part(parts).weights, this_part(parts).rows,
                            cols / 256 * quant::Block<TensorType::Q6_K>::kBytes);
    wait_for_prior_grids();
    constexpr int kInFlight = kRows == 1 ? 2 : 1;
    const int lane = threadIdx.x % 32;
    const int64_t r = matvec_row();
    if (r >= this_part(parts).rows)  // whole warps leave together, so the shuffles below stay full-warp
        return;
    using B = quant::Block<TensorType::Q6_K>;
    const int64_t blocks = cols / 256;
    const auto* weights = static_cast<const uint8_t*>(this_part(parts).weights);
    const int lane_in_block = lane % kQ6KLanes;
    float acc[kMaxMatvecRows] = {};
    walk_row_blocks<kQ6KLanes, kInFlight>(
        blocks, lane, [&](int64_t b) { return q6k_line_bytes(B::locate(weights, r * blocks + b), lane_in_block); },
        [&](const Q6KLineBytes& bytes, int64_t b) { add_q6k_block<kRows>(bytes, b, lane_in_block, x, n, acc); });
    write_row_sums(acc, n, lane, this_part(parts).y, this_part(parts).rows, r, beta);
}

// Q4_0 and Q8_0 a block a lane (block32_lines.cuh): lane i takes blocks i, i + 32, ... of the
// row, and adds its activation block's scale * d * (sum (quant - offset) * xq), as
// quant_matvec_int8_kernel adds eight elements' part. A lane issues the loads of kInFlight blocks
// before the first product: four for one row (a 4096-wide row is 128 blocks, all in flight
// at once), two for more.
template <TensorType T, int kRows>
__global__ void __launch_bounds__(kMatvecWarps * 32)
    block32_matvec_int8_kernel(MatvecParts parts, int64_t cols, Int8Rows x, int n, float beta,
                             bool prefetch_weights)
{
    if (prefetch_weights)
        prefetch_block_rows(this_part(parts).weights, this_part(parts).rows,
                            cols / quant::Block<T>::kElems * quant::Block<T>::kBytes);
    wait_for_prior_grids();
    using B = quant::Block<T>;
    constexpr int kInFlight = kRows == 1 ? 4 : 2;
    const int lane = threadIdx.x % 32;
    const int64_t r = matvec_row();
    if (r >= this_part(parts).rows)  // whole warps leave together, so the shuffles below stay full-warp
        return;
    const int64_t blocks = cols / B::kElems;
    const auto* weights = static_cast<const uint8_t*>(this_part(parts).weights);
    float acc[kMaxMatvecRows] = {};
    walk_row_blocks<1, kInFlight>(
        blocks, lane, [&](int64_t b) { return block32_bytes<T>(B::locate(weights, r * blocks + b)); },
        [&](const Block32Bytes& bytes, int64_t b) {
            const float d = quant::half_from_bits(bytes.d);
            const int64_t c = b * B::kElems;
#pragma unroll
            for (int t = 0; t < kRows; ++t)
                if (t < n)
                    acc[t] += factors_at(x, t, c).x * (d * float(block32_dot<T>(bytes, x.q + int64_t(t) * x.cols + c)));
        });
    write_row_sums(acc, n, lane, this_part(parts).y, this_part(parts).rows, r, beta);
}

} // namespace

void quant_matvec_int8(TensorType type, const MatvecParts& parts, int64_t cols, const Int8Rows& x, int n, float beta,
                       KernelStream stream)
{
    if (x.cols != cols)
        throw Error("quant_matvec_int8: activations of " + std::to_string(x.cols) + " values for rows of " +
                    std::to_string(cols));
    if (parts.count < 1 || parts.count > kMaxMatvecParts)
        throw Error("quant_matvec_int8: " + std::to_string(parts.count) + " matrices in one launch");
    int64_t most_rows = 0;
    bool segments_fit = reinterpret_cast<uintptr_t>(x.q) % 16 == 0;  // k4_segments.cuh, q6k_lines.cuh
    for (int i = 0; i < parts.count; ++i) {
        most_rows = std::max(most_rows, parts.part[i].rows);
        segments_fit = segments_fit && reinterpret_cast<uintptr_t>(parts.part[i].weights) % 16 == 0;
        if (i > 0)
            quant::check_block_alignment(parts.part[i].weights, "quant_matvec_int8");
    }
    // Grid y: the parts; x: the rows of the longest (a shorter part's extra warps leave at once).
    const dim3 grid(matvec_grid(most_rows), static_cast<unsigned>(parts.count));
    launch_matvec(
        "quant_matvec_int8", type, parts.part[0].weights, most_rows, cols, n, segments_fit,
        [&](bool q5_k) {
            const auto kernel = n == 1 ? (q5_k ? k4_matvec_int8_kernel<true, 1> : k4_matvec_int8_kernel<false, 1>)
                                       : (q5_k ? k4_matvec_int8_kernel<true, kMaxMatvecRows>
                                               : k4_matvec_int8_kernel<false, kMaxMatvecRows>);
            launch_kernel(kernel, grid, kMatvecWarps * 32, 0, stream, parts, cols, x, n, beta,
                          stream.overlap_prior);
        },
        [&](auto block) {
            using B = decltype(block);
            if constexpr (std::is_same_v<B, quant::Block<TensorType::Q6_K>>) {
                if (segments_fit) {  // q6k_lines.cuh: aligned lines
                    const auto kernel = n == 1 ? q6k_matvec_int8_kernel<1> : q6k_matvec_int8_kernel<kMaxMatvecRows>;
                    launch_kernel(kernel, grid, kMatvecWarps * 32, 0, stream, parts, cols, x, n, beta,
                          stream.overlap_prior);
                    return;
                }
            }
            constexpr bool kQ4_0 = std::is_same_v<B, quant::Block<TensorType::Q4_0>>;
            if constexpr (kQ4_0 || std::is_same_v<B, quant::Block<TensorType::Q8_0>>) {
                constexpr TensorType kType = kQ4_0 ? TensorType::Q4_0 : TensorType::Q8_0;
                if (segments_fit) {  // block32_lines.cuh: aligned lines
                    const auto kernel = n == 1 ? block32_matvec_int8_kernel<kType, 1>
                                               : block32_matvec_int8_kernel<kType, kMaxMatvecRows>;
                    launch_kernel(kernel, grid, kMatvecWarps * 32, 0, stream, parts, cols, x, n, beta,
                          stream.overlap_prior);
                    return;
                }
            }
            const auto kernel = n == 1 ? quant_matvec_int8_kernel<B, 1> : quant_matvec_int8_kernel<B, kMaxMatvecRows>;
            launch_kernel(kernel, grid, kMatvecWarps * 32, 0, stream, parts, cols, x, n, beta,
                          stream.overlap_prior);
        });
}

void quant_matvec_int8(TensorType type, const void* blocks, int64_t rows, int64_t cols, const Int8Rows& x, int n,
                       float* y, float beta, KernelStream stream)
{
    MatvecParts one;
    one.part[0] = {blocks, rows, y};
    one.count = 1;
    quant_matvec_int8(type, one, cols, x, n, beta, stream);
}

} // namespace pyramid::cuda
