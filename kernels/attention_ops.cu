#include "attention_ops.h"

#include <cmath>
#include <string>
#include <type_traits>

#include "cuda_check.h"
#include "element_type.cuh"
#include "kernel_launch.cuh"
#include "kv_entry.cuh"
#include "tensor_core_attention.h"

namespace pyramid::cuda {
namespace {

// A block is 4 warps; each warp carries 4 (query row, head) pairs of one KV head, so a block
// loads each tile of 32 keys and values once for 16 pairs. One lane scores one key of a tile.
constexpr int kWarps = 4;
constexpr int kPairsPerWarp = 4;
constexpr int kPairsPerBlock = kWarps * kPairsPerWarp;
constexpr int kTile = 32;

// What a tile of stored entries is copied into shared memory as: float32 and fp16 entries as
// they are, q8 and q4 entries decoded to float32 on the way (exact, and no dequantized copy of
// the cache anywhere else; fp16 could not hold scale * code).
template <typename S>
using Tile = std::conditional_t<kValuesPerElement<S> == 1, S, float>;

template <typename S>
__device__ __forceinline__ Tile<S> tile_value(const S* row, int d)
{
    if constexpr (kValuesPerElement<S> == 1)
        return row[d];
    else
        return load_value(row, d);
}

// Shared-memory rows are padded so 32 lanes reading 32 different rows hit 32 different banks.
template <typename T>
__host__ __device__ constexpr int row_stride(int head_dim) { return head_dim + (sizeof(T) == 2 ? 2 : 1); }

// Copies one head's slice of entries [t0, t0 + count) of stored type S (values when `value`)
// into `tile`, rows `stride` apart.
template <typename S>
__device__ void load_tile(const KvBlockTable& table, int t0, int count, int column, int head_dim, bool value,
                          Tile<S>* tile)
{
    const int stride = row_stride<Tile<S>>(head_dim);
    for (int idx = threadIdx.x; idx < count * head_dim; idx += blockDim.x) {
        const int r = idx / head_dim, d = idx % head_dim;
        tile[r * stride + d] = tile_value(at_column(entry_row<S>(table, t0 + r, value), column), d);
    }
}

// The attention score, summed in the same order by both kernels so the probe's recomputed
// scores match the statistics of the attention pass.
template <typename T>
__device__ __forceinline__ float score(const float* scaled_q, const T* key, int head_dim)
{
    float s = 0.0f;
    for (int d = 0; d < head_dim; ++d)
        s += scaled_q[d] * to_float(key[d]);
    return s;
}

struct Params : AttentionRows {
    void* out;            // attention
    float* stats;         // attention (written, may be null) / probe (read)
    int first_row;        // probe
    const float* row_weights;
    float* probe_partials;  // [n_kv_heads, len]: each KV head's sum, written by one block per entry
};

// Shared memory of attention_kernel: the block's scaled queries, then a tile of keys and one of values.
template <typename K, typename V>
size_t attention_shared_bytes(int head_dim)
{
    return sizeof(float) * kPairsPerBlock * head_dim + sizeof(Tile<K>) * kTile * row_stride<Tile<K>>(head_dim) +
           sizeof(Tile<V>) * kTile * row_stride<Tile<V>>(head_dim);
}

// Grid: x = tiles of 16 pairs, y = KV head. T: the output's element type; K, V: the stored
// keys' and values' types. DL = head dimensions per lane (head_dim <= 32 * DL).
template <typename T, typename K, typename V, int DL>
__global__ void __launch_bounds__(kWarps * 32) attention_kernel(Params p)
{
    wait_for_prior_grids();
    float4* shared_words = dynamic_shared_memory<float4>();
    const int hd = p.head_dim;
    const int k_stride = row_stride<Tile<K>>(hd), v_stride = row_stride<Tile<V>>(hd);
    float* qs = reinterpret_cast<float*>(shared_words);  // [kPairsPerBlock][hd], pre-scaled
    // Both tiles start 4-byte aligned: a tile of fp16 rows is 32 * (hd + 2) halves, hd even.
    Tile<K>* ks = reinterpret_cast<Tile<K>*>(qs + kPairsPerBlock * hd);
    Tile<V>* vs = reinterpret_cast<Tile<V>*>(ks + kTile * k_stride);

    const int g = blockIdx.y;
    const int total_pairs = p.n * p.group;
    const int pair0 = blockIdx.x * kPairsPerBlock;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int first_visible = p.len - p.n;  // row i sees entries [0, first_visible + i]
    const int q_width = p.n_heads * hd;

    for (int idx = threadIdx.x; idx < kPairsPerBlock * hd; idx += blockDim.x) {
        const int pair = pair0 + idx / hd;
        float value = 0.0f;
        if (pair < total_pairs) {
            const int i = pair / p.group, h = g * p.group + pair % p.group;
            value = p.q[int64_t(i) * q_width + h * hd + idx % hd] * p.scale;
        }
        qs[idx] = value;
    }
    const int last_pair = min(pair0 + kPairsPerBlock, total_pairs) - 1;
    const int block_visible = first_visible + last_pair / p.group + 1;

    float m[kPairsPerWarp], l[kPairsPerWarp], acc[kPairsPerWarp][DL];
#pragma unroll
    for (int k = 0; k < kPairsPerWarp; ++k) {
        m[k] = -INFINITY;
        l[k] = 0.0f;
#pragma unroll
        for (int c = 0; c < DL; ++c)
            acc[k][c] = 0.0f;
    }

    for (int t0 = 0; t0 < block_visible; t0 += kTile) {
        __syncthreads();  // the previous tile is consumed (and qs is written, the first time)
        load_tile<K>(p.cache, t0, min(kTile, block_visible - t0), g * hd, hd, false, ks);
        load_tile<V>(p.cache, t0, min(kTile, block_visible - t0), g * hd, hd, true, vs);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < kPairsPerWarp; ++k) {
            const int local = warp * kPairsPerWarp + k;
            const int pair = pair0 + local;
            if (pair >= total_pairs)
                continue;
            const int valid = min(kTile, first_visible + pair / p.group + 1 - t0);
            if (valid <= 0)
                continue;
            // Online softmax: rescale what was accumulated when the running maximum grows.
            const float s = lane < valid ? score(qs + local * hd, ks + lane * k_stride, hd) : -INFINITY;
            const float m_new = fmaxf(m[k], warp_max(s));
            const float correction = expf(m[k] - m_new);
            const float e = lane < valid ? expf(s - m_new) : 0.0f;
            l[k] = l[k] * correction + warp_sum(e);
            m[k] = m_new;
#pragma unroll
            for (int c = 0; c < DL; ++c)
                acc[k][c] *= correction;
            for (int j = 0; j < valid; ++j) {
                const float pj = __shfl_sync(kFullWarp, e, j);
                const Tile<V>* v = vs + j * v_stride;
#pragma unroll
                for (int c = 0; c < DL; ++c) {
                    const int d = lane + 32 * c;
                    if (d < hd)
                        acc[k][c] += pj * to_float(v[d]);
                }
            }
        }
    }

    T* out = static_cast<T*>(p.out);
#pragma unroll
    for (int k = 0; k < kPairsPerWarp; ++k) {
        const int pair = pair0 + warp * kPairsPerWarp + k;
        if (pair >= total_pairs)
            continue;
        const int i = pair / p.group, h = g * p.group + pair % p.group;
        const float inv_sum = 1.0f / l[k];
#pragma unroll
        for (int c = 0; c < DL; ++c) {
            const int d = lane + 32 * c;
            if (d < hd)
                out[int64_t(i) * q_width + h * hd + d] = from_float<T>(acc[k][c] * inv_sum);
        }
        if (p.stats && lane == 0) {
            p.stats[(int64_t(i) * p.n_heads + h) * 2] = m[k];
            p.stats[(int64_t(i) * p.n_heads + h) * 2 + 1] = l[k];
        }
    }
}

// Grid: x = tiles of 32 cache entries, y = KV head. Each lane owns one entry of the tile and
// sums its weighted probabilities over the probed rows of the head's query heads; warps combine
// in shared memory in a fixed order and one block writes each (KV head, entry) partial sum, so
// the probe has the same bits in every run (float atomics would add in launch order). K: the
// stored keys' type; scores are those of attention_kernel, from the same tile of keys.
template <typename K>
size_t probe_shared_bytes(int head_dim)
{
    return sizeof(float) * kWarps * (head_dim + kTile) + sizeof(Tile<K>) * kTile * row_stride<Tile<K>>(head_dim);
}

template <typename K>
__global__ void __launch_bounds__(kWarps * 32) probe_kernel(Params p)
{
    wait_for_prior_grids();
    float4* shared_words = dynamic_shared_memory<float4>();
    const int hd = p.head_dim;
    const int stride = row_stride<Tile<K>>(hd);
    float* q_rows = reinterpret_cast<float*>(shared_words);              // [kWarps][hd]
    float* partial = q_rows + kWarps * hd;                                // [kWarps][kTile]
    Tile<K>* ks = reinterpret_cast<Tile<K>*>(partial + kWarps * kTile);  // [kTile][stride]

    const int g = blockIdx.y;
    const int t0 = blockIdx.x * kTile;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int first_visible = p.len - p.n;
    const int tile_n = min(kTile, p.len - t0);
    float* partials = p.probe_partials + int64_t(g) * p.len + t0;
    // Rows before t0 - first_visible see none of this tile.
    const int row_begin = max(p.first_row, t0 - first_visible);
    if (row_begin >= p.n) {  // uniform across the block
        if (int(threadIdx.x) < tile_n)
            partials[threadIdx.x] = 0.0f;
        return;
    }
    load_tile<K>(p.cache, t0, tile_n, g * hd, hd, false, ks);
    __syncthreads();

    const int q_width = p.n_heads * hd;
    float* q_row = q_rows + warp * hd;
    float sum = 0.0f;
    const int pairs = (p.n - row_begin) * p.group;
    for (int pair = warp; pair < pairs; pair += kWarps) {
        const int i = row_begin + pair / p.group, h = g * p.group + pair % p.group;
        __syncwarp();
        for (int d = lane; d < hd; d += 32)
            q_row[d] = p.q[int64_t(i) * q_width + h * hd + d] * p.scale;
        __syncwarp();
        const int valid = min(tile_n, first_visible + i + 1 - t0);
        if (lane < valid) {
            const float s = score(q_row, ks + lane * stride, hd);
            const float* st = p.stats + (int64_t(i) * p.n_heads + h) * 2;
            const float weight = p.row_weights[i - p.first_row] / float(p.n_heads);
            sum += weight * (expf(s - st[0]) * (1.0f / st[1]));
        }
    }
    partial[warp * kTile + lane] = sum;
    __syncthreads();
    if (warp == 0 && lane < tile_n) {
        float total = 0.0f;
        for (int w = 0; w < kWarps; ++w)
            total += partial[w * kTile + lane];
        partials[lane] = total;
    }
}

// out[j] += the KV heads' partial sums of entry j, added in head order.
__global__ void probe_sum_kernel(const float* partials, int len, int n_kv_heads, float* out)
{
    wait_for_prior_grids();
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= len)
        return;
    float sum = 0.0f;
    for (int g = 0; g < n_kv_heads; ++g)
        sum += partials[int64_t(g) * len + j];
    out[j] += sum;
}

void validate(const char* what, int n, int len, const AttentionDims& dims, const KvBlockFormat& format)
{
    const int hd = dims.head_dim;
    if (hd <= 0 || hd % 2 != 0 || hd > kMaxHeadDim || dims.n_kv_heads <= 0 || dims.n_heads % dims.n_kv_heads != 0 ||
        n < 0 || n > len || !kv_values_fit(format.key_type, hd) || !kv_values_fit(format.value_type, hd))
        throw Error(std::string(what) + ": unsupported shape (head_dim " + std::to_string(hd) + ", heads " +
                    std::to_string(dims.n_heads) + "/" + std::to_string(dims.n_kv_heads) + ", rows " +
                    std::to_string(n) + " of " + std::to_string(len) + "; head_dim must be even and at most " +
                    std::to_string(kMaxHeadDim) + ", and a multiple of 32 for q8 or q4 entries)");
}

Params make_params(const float* q, int n, const KvBlockTable& cache, int len, const AttentionDims& dims)
{
    Params p{};
    static_cast<AttentionRows&>(p) = attention_rows(q, n, cache, len, dims);
    return p;
}

template <typename Kernel>
void allow_shared_memory(Kernel kernel, size_t bytes, const char* what)
{
    // Above 48 KB a kernel must opt in (every architecture built here allows at least 99 KB).
    if (bytes > 48 * 1024)
        check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
              what);
}

template <typename T, typename K, typename V, int DL>
void launch_attention(const Params& p, int n_kv_heads, KernelStream stream)
{
    const size_t shared = attention_shared_bytes<K, V>(p.head_dim);
    allow_shared_memory(attention_kernel<T, K, V, DL>, shared, "attention (shared memory)");
    const dim3 grid((p.n * p.group + kPairsPerBlock - 1) / kPairsPerBlock, n_kv_heads);
    launch_kernel(attention_kernel<T, K, V, DL>, grid, kWarps * 32, shared, stream, p);
}

} // namespace

AttentionRows attention_rows(const float* q, int n, const KvBlockTable& cache, int len, const AttentionDims& dims)
{
    AttentionRows rows;
    rows.q = q;
    rows.n = n;
    rows.cache = cache;
    rows.len = len;
    rows.n_heads = dims.n_heads;
    rows.group = dims.n_heads / dims.n_kv_heads;
    rows.head_dim = dims.head_dim;
    rows.scale = 1.0f / std::sqrt(static_cast<float>(dims.head_dim));
    return rows;
}

void attention(const float* q, int n, const KvBlockTable& cache, int len, const AttentionDims& dims, Precision type,
               void* out, float* stats, KernelStream stream)
{
    if (tensor_core_attention_fits(type, cache.format, dims.head_dim)) {
        validate("attention", n, len, dims, cache.format);
        tensor_core_attention(q, n, cache, len, dims, out, stats, stream);
    } else {
        cuda_core_attention(q, n, cache, len, dims, type, out, stats, stream);
    }
}

void cuda_core_attention(const float* q, int n, const KvBlockTable& cache, int len, const AttentionDims& dims,
                         Precision type, void* out, float* stats, KernelStream stream)
{
    validate("attention", n, len, dims, cache.format);
    if (n == 0)
        return;
    Params p = make_params(q, n, cache, len, dims);
    p.out = out;
    p.stats = stats;
    dispatch_kv(type, cache.format, "attention", [&](auto* t, auto* k, auto* v) {
        using T = std::remove_pointer_t<decltype(t)>;
        using K = std::remove_pointer_t<decltype(k)>;
        using V = std::remove_pointer_t<decltype(v)>;
        if (dims.head_dim <= 32)
            launch_attention<T, K, V, 1>(p, dims.n_kv_heads, stream);
        else if (dims.head_dim <= 64)
            launch_attention<T, K, V, 2>(p, dims.n_kv_heads, stream);
        else if (dims.head_dim <= 128)
            launch_attention<T, K, V, 4>(p, dims.n_kv_heads, stream);
        else
            launch_attention<T, K, V, 8>(p, dims.n_kv_heads, stream);
    });
    check_launch("attention");
}

void attention_probe(const float* q, int n, const KvBlockTable& cache, int len, const AttentionDims& dims,
                     Precision type, const float* stats, int first_row, const float* row_weights, float* partials,
                     float* out, KernelStream stream)
{
    validate("attention_probe", n, len, dims, cache.format);
    if (len > 0)
        check(cudaMemsetAsync(out, 0, sizeof(float) * static_cast<size_t>(len), stream.stream), "attention_probe (clear)");
    attention_probe_add(q, n, cache, len, dims, type, stats, first_row, row_weights, partials, out, stream);
}

void attention_probe_add(const float* q, int n, const KvBlockTable& cache, int len, const AttentionDims& dims,
                         Precision type, const float* stats, int first_row, const float* row_weights, float* partials,
                         float* out, KernelStream stream)
{
    validate("attention_probe", n, len, dims, cache.format);
    if (first_row < 0)
        throw Error("attention_probe: first_row " + std::to_string(first_row) + " is negative");
    if (len == 0 || first_row >= n)
        return;
    if (tensor_core_attention_fits(type, cache.format, dims.head_dim)) {
        tensor_core_probe_partials(q, n, cache, len, dims, stats, first_row, row_weights, partials, stream);
    } else {
        Params p = make_params(q, n, cache, len, dims);
        p.stats = const_cast<float*>(stats);
        p.first_row = first_row;
        p.row_weights = row_weights;
        p.probe_partials = partials;
        const dim3 grid((len + kTile - 1) / kTile, dims.n_kv_heads);
        // The keys' type alone picks the kernel (all value types share it).
        dispatch_kv(type, cache.format, "attention_probe", [&](auto*, auto* k, auto*) {
            using K = std::remove_pointer_t<decltype(k)>;
            const size_t shared = probe_shared_bytes<K>(dims.head_dim);
            allow_shared_memory(probe_kernel<K>, shared, "attention_probe (shared memory)");
            launch_kernel(probe_kernel<K>, grid, kWarps * 32, shared, stream, p);
        });
        check_launch("attention_probe");
    }
    constexpr int kSumThreads = 256;
    launch_kernel(probe_sum_kernel, dim3((len + kSumThreads - 1) / kSumThreads), kSumThreads, 0, stream,
                  static_cast<const float*>(partials), len, dims.n_kv_heads, out);
    check_launch("attention_probe (sum over KV heads)");
}

} // namespace pyramid::cuda
