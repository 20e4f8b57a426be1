#include "decode_attention.h"

#include <cmath>
#include <string>
#include <type_traits>

#include "cuda_check.h"
#include "element_type.cuh"
#include "int8_rounding.cuh"
#include "kernel_launch.cuh"
#include "kv_entry.cuh"

namespace pyramid::cuda {
namespace {

constexpr int kWarps = 4;            // warps per block of the split pass (consecutive splits of one head)
constexpr int kTile = 32;            // entries a warp scores at once, one per lane
constexpr int kMaxHeadsPerWarp = 8;  // query heads of one KV head a warp carries; more take several warps
constexpr int kProbeThreads = 128;
constexpr int kMaxGrid = 65535;      // grid y and z limit: sequences of one call

// Two adjacent output elements (loads: load_pair of kv_entry.cuh, which the stored entries share).
__device__ __forceinline__ void store_pair(float* p, float2 v) { *reinterpret_cast<float2*>(p) = v; }
__device__ __forceinline__ void store_pair(__half* p, float2 v) { *reinterpret_cast<__half2*>(p) = __floats2half2_rn(v.x, v.y); }

struct Params {
    const float* q;
    const DecodeSequence* sequences;
    KvBlockFormat format;
    int n_heads;
    int group;        // query heads per KV head
    int head_chunks;  // warps' worth of heads per KV head: ceil(group / kMaxHeadsPerWarp)
    int head_dim;
    float scale;
    void* out;
    float* stats;
    float* partial_stats;
    float* partial_out;
    float* scores;
    float* probe_out;
    int8_t* q8;  // out rounded to int8 beside it (head_dim a multiple of 32); null: not
    float2* factors8;
};

// Entry e's key (value) slice of the head starting at `column`, in its stored type S.
template <typename S>
__device__ __forceinline__ const S* head_row(const DecodeSequence& s, const KvBlockFormat& f, int e, bool value,
                                             int column)
{
    return at_column(entry_row<S>(s.blocks[e / f.block_entries], e % f.block_entries, f, value), column);
}

// A lane's pairs of one head's row: values 2 * (lane + 32 c) and the next, zero past head_dim;
// q8 and q4 values decoded here, in registers.
template <typename S, int P>
__device__ __forceinline__ void load_lane_pairs(const S* row, int hd, int lane, float2 (&pairs)[P])
{
#pragma unroll
    for (int c = 0; c < P; ++c) {
        const int d = 2 * (lane + 32 * c);
        pairs[c] = d < hd ? load_pair(row, d) : make_float2(0.0f, 0.0f);
    }
}

// Entries whose keys (or values) a lane loads before it uses the first: 32 / P, so their P
// pairs each take 64 registers whatever the head size (half that beside eight query heads'
// queries and sums). At batch 1 a layer has few warps (a warp per KV head and split: at most
// 32 splits, decode_splits.h), each waiting on memory in turn, so what a split costs is its
// round trips to memory: 2 * decode_split_entries / kLoadGroup of them (4 for 128-dimension
// heads and caches of up to 1024 entries, 16 at 4096), where loading entry by entry (a few in
// flight) took 64 for every split of 128 entries.
template <int P, int G>
constexpr int kLoadGroup = (G > 4 ? 16 : 32) / P;

// The lane's pairs of entries t0 + j0 + j (j < kLoadGroup) of one head, keys or values: all
// loads first. Entries past the tile's last (t0 + valid - 1) load that one again, unused.
template <typename S, int P, int N>
__device__ __forceinline__ void load_group(const DecodeSequence& s, const KvBlockFormat& f, int t0, int j0, int valid,
                                           bool value, int column, int hd, int lane, float2 (&pairs)[N][P])
{
#pragma unroll
    for (int j = 0; j < N; ++j)
        load_lane_pairs<S, P>(head_row<S>(s, f, t0 + min(j0 + j, valid - 1), value, column), hd, lane, pairs[j]);
}

// Grid: x = groups of kWarps splits, y = (KV head, chunk of its query heads), z = sequence.
// A warp owns one split: lanes hold P (dimension) pairs of its G query heads, score the split's
// entries 32 at a time (one entry per lane after a warp reduction) with an online softmax, and
// write the split's maximum, sum and unnormalised output. Keys and values are loaded
// kLoadGroup entries at a time (above); the sums run entry by entry in order, as they would
// one load at a time. K, V: the stored keys' and values' types; G and P are compile-time bounds.
template <typename K, typename V, int P, int G>
__global__ void __launch_bounds__(kWarps * 32) decode_split_kernel(Params p)
{
    wait_for_prior_grids();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const DecodeSequence s = p.sequences[blockIdx.z];
    const int split = blockIdx.x * kWarps + warp;
    if (split >= decode_splits(s.len))
        return;  // a warp-uniform exit; no block-wide barrier follows
    const int g = blockIdx.y / p.head_chunks;
    const int h0 = g * p.group + (blockIdx.y % p.head_chunks) * kMaxHeadsPerWarp;
    const int heads = min(G, g * p.group + p.group - h0);
    const int hd = p.head_dim;
    const int split_entries = decode_split_entries(s.len);
    const int e_begin = split * split_entries;
    const int e_end = min(s.len, e_begin + split_entries);

    float2 q[G][P];
    float m[G], l[G];
    float2 acc[G][P];
#pragma unroll
    for (int k = 0; k < G; ++k) {
        m[k] = -INFINITY;
        l[k] = 0.0f;
#pragma unroll
        for (int c = 0; c < P; ++c) {
            const int d = 2 * (lane + 32 * c);
            float2 v = make_float2(0.0f, 0.0f);
            if (k < heads && d < hd) {
                v = load_pair(p.q + int64_t(s.row) * p.n_heads * hd + (h0 + k) * hd, d);
                v.x *= p.scale;
                v.y *= p.scale;
            }
            q[k][c] = v;
            acc[k][c] = make_float2(0.0f, 0.0f);
        }
    }
    const int column = g * hd;

    for (int t0 = e_begin; t0 < e_end; t0 += kTile) {
        const int valid = min(kTile, e_end - t0);
        float mine[G];  // lane j: the score of entry t0 + j for each head
#pragma unroll
        for (int k = 0; k < G; ++k)
            mine[k] = -INFINITY;
        for (int j0 = 0; j0 < valid; j0 += kLoadGroup<P, G>) {
            float2 kp[kLoadGroup<P, G>][P];
            load_group<K, P>(s, p.format, t0, j0, valid, false, column, hd, lane, kp);
#pragma unroll
            for (int j = 0; j < kLoadGroup<P, G>; ++j) {
                if (j0 + j >= valid)
                    break;  // warp-uniform: the shuffles below stay full-warp
#pragma unroll
                for (int k = 0; k < G; ++k) {
                    if (k >= heads)
                        break;
                    float part = 0.0f;
#pragma unroll
                    for (int c = 0; c < P; ++c)
                        part += q[k][c].x * kp[j][c].x + q[k][c].y * kp[j][c].y;
                    const float score = warp_sum(part);
                    if (lane == j0 + j)
                        mine[k] = score;
                }
            }
        }

        // Online softmax: rescale what was accumulated when the running maximum grows.
        float e[G];
#pragma unroll
        for (int k = 0; k < G; ++k) {
            e[k] = 0.0f;
            if (k >= heads)
                break;
            const float m_new = fmaxf(m[k], warp_max(mine[k]));
            const float correction = expf(m[k] - m_new);
            e[k] = lane < valid ? expf(mine[k] - m_new) : 0.0f;
            l[k] = l[k] * correction + warp_sum(e[k]);
            m[k] = m_new;
#pragma unroll
            for (int c = 0; c < P; ++c) {
                acc[k][c].x *= correction;
                acc[k][c].y *= correction;
            }
            if (s.score_base >= 0 && lane < valid)
                p.scores[s.score_base + int64_t(h0 + k) * s.len + t0 + lane] = mine[k];
        }
        for (int j0 = 0; j0 < valid; j0 += kLoadGroup<P, G>) {
            float2 vp[kLoadGroup<P, G>][P];
            load_group<V, P>(s, p.format, t0, j0, valid, true, column, hd, lane, vp);
#pragma unroll
            for (int j = 0; j < kLoadGroup<P, G>; ++j) {
                if (j0 + j >= valid)
                    break;
#pragma unroll
                for (int k = 0; k < G; ++k) {
                    if (k >= heads)
                        break;
                    const float pj = __shfl_sync(kFullWarp, e[k], j0 + j);
#pragma unroll
                    for (int c = 0; c < P; ++c) {
                        acc[k][c].x += pj * vp[j][c].x;
                        acc[k][c].y += pj * vp[j][c].y;
                    }
                }
            }
        }
    }

#pragma unroll
    for (int k = 0; k < G; ++k) {
        if (k >= heads)
            break;
        const int64_t slot = int64_t(s.split_base + split) * p.n_heads + h0 + k;
        if (lane == 0) {
            p.partial_stats[slot * 2] = m[k];
            p.partial_stats[slot * 2 + 1] = l[k];
        }
#pragma unroll
        for (int c = 0; c < P; ++c) {
            const int d = 2 * (lane + 32 * c);
            if (d < hd)
                store_pair(p.partial_out + slot * hd + d, acc[k][c]);
        }
    }
}

// Grid: x = groups of kWarps heads, y = sequence. A warp merges one head's splits: the
// largest of their maxima, then each split's sum and output scaled to it.
template <typename T, int P>
__global__ void __launch_bounds__(kWarps * 32) decode_merge_kernel(Params p)
{
    wait_for_prior_grids();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int h = blockIdx.x * kWarps + warp;
    if (h >= p.n_heads)
        return;
    const DecodeSequence s = p.sequences[blockIdx.y];
    const int splits = decode_splits(s.len);
    const int hd = p.head_dim;
    const float* split_stats = p.partial_stats + (int64_t(s.split_base) * p.n_heads + h) * 2;
    const int64_t stats_stride = int64_t(p.n_heads) * 2;

    // The maxima a split a lane (one round trip to memory for up to 32 splits), then the
    // splits in order, eight loads in flight: the same sums as one split at a time.
    float largest = -INFINITY;
    for (int i = lane; i < splits; i += 32)
        largest = fmaxf(largest, split_stats[i * stats_stride]);
    largest = warp_max(largest);
    float sum = 0.0f;
    float2 acc[P];
#pragma unroll
    for (int c = 0; c < P; ++c)
        acc[c] = make_float2(0.0f, 0.0f);
#pragma unroll 8
    for (int i = 0; i < splits; ++i) {
        const float weight = expf(split_stats[i * stats_stride] - largest);
        sum += split_stats[i * stats_stride + 1] * weight;
        const float* part = p.partial_out + ((int64_t(s.split_base) + i) * p.n_heads + h) * hd;
#pragma unroll
        for (int c = 0; c < P; ++c) {
            const int d = 2 * (lane + 32 * c);
            if (d < hd) {
                const float2 v = load_pair(part, d);
                acc[c].x += v.x * weight;
                acc[c].y += v.y * weight;
            }
        }
    }
    const float inv_sum = 1.0f / sum;
    const int64_t first = int64_t(s.row) * p.n_heads * hd + int64_t(h) * hd;
    T* out = static_cast<T*>(p.out) + first;
#pragma unroll
    for (int c = 0; c < P; ++c) {
        const int d = 2 * (lane + 32 * c);
        acc[c] = make_float2(acc[c].x * inv_sum, acc[c].y * inv_sum);
        if (d < hd)
            store_pair(out + d, acc[c]);
    }
    if (p.q8) {
        // The head's blocks of 32 values as stored, each rounded by the warp with lane j holding
        // value j: block 2c + half sits in pair c of lanes 16 half to 16 half + 15.
#pragma unroll
        for (int c = 0; c < P; ++c)
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const int block = 2 * c + half;
                if (32 * block >= hd)
                    break;
                const int from = 16 * half + lane / 2;
                const float x = __shfl_sync(kFullWarp, to_float(from_float<T>(acc[c].x)), from);
                const float y = __shfl_sync(kFullWarp, to_float(from_float<T>(acc[c].y)), from);
                const int64_t i = first + 32 * block;
                round_block_int8(lane % 2 ? y : x, p.q8 + i + lane, p.factors8 + i / kInt8Block);
            }
    }
    if (p.stats && lane == 0) {
        p.stats[(int64_t(s.row) * p.n_heads + h) * 2] = largest;
        p.stats[(int64_t(s.row) * p.n_heads + h) * 2 + 1] = sum;
    }
}

// Grid: x = tiles of kProbeThreads entries, y = sequence. Each thread turns one entry's raw
// scores into its probability under every head and sums them, heads in order.
__global__ void __launch_bounds__(kProbeThreads) decode_probe_kernel(Params p)
{
    wait_for_prior_grids();
    const DecodeSequence s = p.sequences[blockIdx.y];
    const int j = blockIdx.x * kProbeThreads + threadIdx.x;
    if (s.score_base < 0 || j >= s.len)
        return;
    const float* stats = p.stats + int64_t(s.row) * p.n_heads * 2;
    float sum = 0.0f;
    for (int h = 0; h < p.n_heads; ++h)
        sum += expf(p.scores[s.score_base + int64_t(h) * s.len + j] - stats[2 * h]) * (1.0f / stats[2 * h + 1]);
    p.probe_out[s.probe_base + j] = s.probe_weight / float(p.n_heads) * sum;
}

template <typename K, typename V, int P, int G>
void launch_split(const Params& p, dim3 grid, KernelStream stream)
{
    launch_kernel(decode_split_kernel<K, V, P, G>, grid, kWarps * 32, 0, stream, p);
}

template <typename K, typename V, int P>
void launch_split_for_group(const Params& p, dim3 grid, KernelStream stream)
{
    // The smallest head bound that holds the group keeps registers for the common 1:1 case.
    if (p.group == 1)
        launch_split<K, V, P, 1>(p, grid, stream);
    else if (p.group == 2)
        launch_split<K, V, P, 2>(p, grid, stream);
    else if (p.group <= 4)
        launch_split<K, V, P, 4>(p, grid, stream);
    else
        launch_split<K, V, P, kMaxHeadsPerWarp>(p, grid, stream);
}

template <typename T, typename K, typename V, int P>
void launch_all(const Params& p, const DecodeBatch& batch, int n_kv_heads, bool probed, KernelStream stream)
{
    const int count = batch.layout.count;
    const dim3 split_grid((decode_splits_up_to(batch.layout.grid_len) + kWarps - 1) / kWarps, n_kv_heads * p.head_chunks,
                          count);
    launch_split_for_group<K, V, P>(p, split_grid, stream);
    check_launch("decode_attention (splits)");
    launch_kernel(decode_merge_kernel<T, P>, dim3((p.n_heads + kWarps - 1) / kWarps, count), kWarps * 32, 0, stream, p);
    check_launch("decode_attention (merge)");
    if (probed) {
        const dim3 probe_grid((batch.layout.grid_len + kProbeThreads - 1) / kProbeThreads, count);
        launch_kernel(decode_probe_kernel, probe_grid, kProbeThreads, 0, stream, p);
        check_launch("decode_attention (probe)");
    }
}

} // namespace

void decode_attention(const float* q, const DecodeBatch& batch, const AttentionDims& dims, Precision type, void* out,
                      float* stats, const DecodeScratch& scratch, float* probe_out, KernelStream stream,
                      const Int8Rows& also_int8)
{
    const DecodeLayout& layout = batch.layout;
    const int hd = dims.head_dim;
    const KvBlockFormat& format = batch.format;
    if (hd <= 0 || hd % 2 != 0 || hd > kMaxHeadDim || dims.n_kv_heads <= 0 || dims.n_heads % dims.n_kv_heads != 0 ||
        !kv_values_fit(format.key_type, hd) || !kv_values_fit(format.value_type, hd) ||
        format.kv_dim != dims.n_kv_heads * hd)
        throw Error("decode_attention: unsupported shape (head_dim " + std::to_string(hd) + ", heads " +
                    std::to_string(dims.n_heads) + "/" + std::to_string(dims.n_kv_heads) + ", entries of " +
                    std::to_string(format.kv_dim) + " values; head_dim must be even, at most " +
                    std::to_string(kMaxHeadDim) + ", and a multiple of 32 for q8 or q4 entries)");
    if (layout.count > kMaxGrid)
        throw Error("decode_attention: " + std::to_string(layout.count) + " sequences in one call (at most " +
                    std::to_string(kMaxGrid) + ")");
    if (layout.count == 0)
        return;
    if (layout.grid_len < layout.max_len)
        throw Error("decode_attention: grids for " + std::to_string(layout.grid_len) + " cache entries, a cache of " +
                    std::to_string(layout.max_len) + " (lay_out_decode_batch sets both)");
    const bool probed = layout.scores > 0;
    if (probed && (!stats || !scratch.scores || !probe_out))
        throw Error("decode_attention: probed sequences need stats, score scratch and a probe output");
    if (also_int8 && (hd % kInt8Block != 0 || also_int8.cols != int64_t(dims.n_heads) * hd))
        throw Error("decode_attention: int8 rows of " + std::to_string(also_int8.cols) + " values for outputs of " +
                    std::to_string(dims.n_heads) + " heads of " + std::to_string(hd) +
                    " (head_dim must be a multiple of 32)");

    Params p{};
    p.q = q;
    p.sequences = batch.sequences;
    p.format = format;
    p.n_heads = dims.n_heads;
    p.group = dims.n_heads / dims.n_kv_heads;
    p.head_chunks = (p.group + kMaxHeadsPerWarp - 1) / kMaxHeadsPerWarp;
    p.head_dim = hd;
    p.scale = 1.0f / std::sqrt(static_cast<float>(hd));
    p.out = out;
    p.stats = stats;
    p.partial_stats = scratch.partial_stats;
    p.partial_out = scratch.partial_out;
    p.scores = scratch.scores;
    p.probe_out = probe_out;
    p.q8 = also_int8.q;
    p.factors8 = also_int8.factors;
    if (int64_t(dims.n_kv_heads) * p.head_chunks > kMaxGrid)
        throw Error("decode_attention: too many heads (" + std::to_string(dims.n_heads) + ")");

    dispatch_kv(type, format, "decode_attention", [&](auto* t, auto* k, auto* v) {
        using T = std::remove_pointer_t<decltype(t)>;
        using K = std::remove_pointer_t<decltype(k)>;
        using V = std::remove_pointer_t<decltype(v)>;
        if (hd <= 64)
            launch_all<T, K, V, 1>(p, batch, dims.n_kv_heads, probed, stream);
        else if (hd <= 128)
            launch_all<T, K, V, 2>(p, batch, dims.n_kv_heads, probed, stream);
        else
            launch_all<T, K, V, 4>(p, batch, dims.n_kv_heads, probed, stream);
    });
}

} // namespace pyramid::cuda
