#include "top_logits_ops.h"

#include <string>

#include "cuda_check.h"
#include "element_type.cuh"
#include "kernel_launch.cuh"

namespace pyramid::cuda {
namespace {

constexpr int kThreads = 1024;  // many loads in flight: a single row (one sequence) is one block
constexpr int kWarps = kThreads / 32;
constexpr int kDigitBits = 8;
constexpr int kBins = 1 << kDigitBits;
constexpr uint32_t kNoBin = kBins;  // a lane with nothing to count
constexpr int kLoadsPerThread = 4;  // loads issued together before their keys are counted

// Float order as unsigned order: positive floats above the negative ones, whose bits count
// down. NaN becomes 0, below -inf (0x007fffff); -0.0 takes +0.0's key so the two tie.
__device__ __forceinline__ uint32_t order_key(float x)
{
    uint32_t u = __float_as_uint(x);
    const uint32_t magnitude = u & 0x7fffffffu;
    if (magnitude > 0x7f800000u)
        return 0;
    if (magnitude == 0)
        u = 0;
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

// Key above, inverted id below: descending pairs are by value descending, then id ascending.
// 0 (key 0 with id 0xffffffff) is below every pair of a real entry, so it pads the sort.
__device__ __forceinline__ uint64_t sort_pair(uint32_t key, int id)
{
    return (uint64_t(key) << 32) | uint64_t(~uint32_t(id));
}

__device__ __forceinline__ uint32_t warp_total(uint32_t x)
{
    for (int offset = 16; offset > 0; offset /= 2)
        x += __shfl_xor_sync(kFullWarp, x, offset);
    return x;
}

// One block per row. `padded` is the power of two >= k the sort runs on.
__global__ void __launch_bounds__(kThreads)
    top_logits_kernel(const float* __restrict__ logits, int n, int k, int padded, int32_t* ids, float* values)
{
    wait_for_prior_grids();
    __shared__ uint32_t warp_hist[kWarps][kBins];  // one histogram per warp: no atomics across warps
    __shared__ uint32_t hist[kBins];
    __shared__ uint64_t pairs[kMaxTopLogits];
    __shared__ uint32_t warp_ties[kWarps];
    // The radix select's state: the key bits fixed so far, and how many of the entries that
    // share them are still to be taken (the others above are taken already).
    __shared__ uint32_t select_prefix, select_mask;
    __shared__ int select_need, taken_above;

    const float* row = logits + int64_t(blockIdx.x) * n;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (threadIdx.x == 0) {
        select_prefix = 0;
        select_mask = 0;
        select_need = k;
        taken_above = 0;
    }

    // 1-2. The k-th largest key, most significant digit first.
    for (int shift = 32 - kDigitBits; shift >= 0; shift -= kDigitBits) {
        for (int i = threadIdx.x; i < kWarps * kBins; i += kThreads)
            warp_hist[i / kBins][i % kBins] = 0;
        __syncthreads();
        const uint32_t prefix = select_prefix, mask = select_mask;
        const uint32_t need = uint32_t(select_need);
        for (int base = 0; base < n; base += kThreads * kLoadsPerThread) {
            uint32_t bins[kLoadsPerThread];
#pragma unroll
            for (int j = 0; j < kLoadsPerThread; ++j) {
                const int i = base + j * kThreads + int(threadIdx.x);
                bins[j] = kNoBin;
                if (i < n) {
                    const uint32_t key = order_key(row[i]);
                    if ((key & mask) == prefix)
                        bins[j] = (key >> shift) & (kBins - 1);
                }
            }
#pragma unroll
            for (int j = 0; j < kLoadsPerThread; ++j) {
                // Lanes with the same digit add once, through their lowest lane.
                const uint32_t peers = __match_any_sync(kFullWarp, bins[j]);
                if (bins[j] != kNoBin && lane == __ffs(peers) - 1)
                    atomicAdd(&warp_hist[warp][bins[j]], uint32_t(__popc(peers)));
            }
        }
        __syncthreads();
        for (int b = threadIdx.x; b < kBins; b += kThreads) {
            uint32_t total = 0;
            for (int w = 0; w < kWarps; ++w)
                total += warp_hist[w][b];
            hist[b] = total;
        }
        __syncthreads();
        if (warp == 0) {
            // Lane l holds 8 bins from 255 - 8l down; a scan over the lanes counts the
            // candidates above each lane's bins. Exactly one lane holds the bin where the
            // count from the top reaches `need` (need >= 1 and never more than the candidates).
            constexpr int kPerLane = kBins / 32;
            const int top = kBins - 1 - kPerLane * lane;
            uint32_t own = 0;
            for (int j = 0; j < kPerLane; ++j)
                own += hist[top - j];
            uint32_t through = own;
            for (int d = 1; d < 32; d *= 2) {
                const uint32_t v = __shfl_up_sync(kFullWarp, through, d);
                if (lane >= d)
                    through += v;
            }
            uint32_t above = through - own;
            if (above < need && need <= through)
                for (int j = 0; j < kPerLane; ++j) {
                    const uint32_t count = hist[top - j];
                    if (above + count >= need) {
                        select_prefix = prefix | (uint32_t(top - j) << shift);
                        select_mask = mask | (uint32_t(kBins - 1) << shift);
                        select_need = int(need - above);
                        break;
                    }
                    above += count;
                }
        }
        __syncthreads();
    }

    // 3. Everything above the threshold (k - need entries, in any order: the sort orders
    // them) and the `need` lowest-id entries equal to it. Each warp scans one contiguous
    // segment of ids, so counting the ties per warp orders them by id across the block.
    const uint32_t threshold = select_prefix;
    const uint32_t need = uint32_t(select_need);
    const int above_count = k - int(need);
    const int segment = (n + kWarps - 1) / kWarps;
    const int begin = min(n, warp * segment), end = min(n, begin + segment);
    uint32_t ties = 0;
    for (int base = begin; base < end; base += 32) {
        const int i = base + lane;
        const bool in = i < end;
        const uint32_t key = in ? order_key(row[i]) : 0;
        if (in && key > threshold)
            pairs[atomicAdd(&taken_above, 1)] = sort_pair(key, i);
        ties += uint32_t(__popc(__ballot_sync(kFullWarp, in && key == threshold)));
    }
    if (lane == 0)
        warp_ties[warp] = ties;
    for (int i = k + int(threadIdx.x); i < padded; i += kThreads)
        pairs[i] = 0;
    __syncthreads();
    uint32_t earlier = warp_total(lane < warp ? warp_ties[lane] : 0);  // ties in the segments before
    for (int base = begin; base < end && earlier < need; base += 32) {
        const int i = base + lane;
        const bool tie = i < end && order_key(row[i]) == threshold;
        const uint32_t votes = __ballot_sync(kFullWarp, tie);
        const uint32_t rank = earlier + uint32_t(__popc(votes & ((1u << lane) - 1)));
        if (tie && rank < need)
            pairs[above_count + int(rank)] = sort_pair(threshold, i);
        earlier += uint32_t(__popc(votes));
    }
    __syncthreads();

    // 4. Bitonic sort, descending: each step compares disjoint pairs (i, i ^ stride).
    for (int size = 2; size <= padded; size *= 2)
        for (int stride = size / 2; stride > 0; stride /= 2) {
            for (int i = threadIdx.x; i < padded; i += kThreads) {
                const int j = i ^ stride;
                if (j > i) {
                    const uint64_t a = pairs[i], b = pairs[j];
                    const bool descending = (i & size) == 0;
                    if (descending ? a < b : a > b) {
                        pairs[i] = b;
                        pairs[j] = a;
                    }
                }
            }
            __syncthreads();
        }

    for (int i = threadIdx.x; i < k; i += kThreads) {
        const int id = int(~uint32_t(pairs[i]));
        ids[int64_t(blockIdx.x) * k + i] = id;
        values[int64_t(blockIdx.x) * k + i] = row[id];
    }
}

} // namespace

void top_logits(const float* logits, int rows, int n_vocab, int k, int32_t* ids, float* values, KernelStream stream)
{
    if (rows < 0 || n_vocab < 1)
        throw Error("top_logits: " + std::to_string(rows) + " rows of " + std::to_string(n_vocab) +
                    " logits; expected rows >= 0 and n_vocab >= 1");
    if (k < 0 || k > n_vocab || k > kMaxTopLogits)
        throw Error("top_logits: k = " + std::to_string(k) + " is outside 0 ... min(n_vocab " +
                    std::to_string(n_vocab) + ", kMaxTopLogits " + std::to_string(kMaxTopLogits) + ")");
    if (rows == 0 || k == 0)
        return;
    int padded = 1;
    while (padded < k)
        padded *= 2;
    launch_kernel(top_logits_kernel, rows, kThreads, 0, stream, logits, n_vocab, k, padded, ids, values);
    check_launch("top_logits_kernel");
}

} // namespace pyramid::cuda
