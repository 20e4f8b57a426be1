#include "tensor_core_attention.h"

#include <cmath>
#include <string>
#include <type_traits>

#include "cuda_check.h"
#include "element_type.cuh"
#include "kernel_launch.cuh"
#include "kv_entry.cuh"
#include "warp_mma.cuh"

namespace pyramid::cuda {
namespace {

constexpr int kWarps = 4;
constexpr int kPairsPerWarp = 16;  // the rows of one mma
constexpr int kPairsPerBlock = kWarps * kPairsPerWarp;
constexpr int kKeys = 64;  // keys (and values) a tile
// Shared-memory rows are padded by 8 halves (4 banks), so the eight rows one fragment load
// touches start in different banks.
constexpr int kPad = 8;

struct Params : AttentionRows {
    __half* out;
    float* stats;
};

template <typename S>
constexpr bool kQuantized = kValuesPerElement<S> != 1;

// Keys as rows [kKeys][HD + kPad] (q8/q4 keys as their codes, exact in fp16), values
// transposed [HD][kKeys + kPad], then for q8/q4 keys their scales [kKeys][HD / 32] in float32.
template <int HD, typename K>
constexpr size_t shared_bytes()
{
    return sizeof(__half) * (size_t(kKeys) * (HD + kPad) + size_t(HD) * (kKeys + kPad)) +
           (kQuantized<K> ? sizeof(float) * kKeys * (HD / kKvBlockValues) : 0);
}

__device__ __forceinline__ uint32_t word_at(const __half* p) { return *reinterpret_cast<const uint32_t*>(p); }

// The bits of fp16 value j of the eight in v (read as integers, not through a __half pointer:
// the emulation's compiler may assume a uint4 is never read as __half).
__device__ __forceinline__ uint32_t half_bits(const uint4& v, int j)
{
    const uint32_t word = j < 4 ? (j < 2 ? v.x : v.y) : (j < 6 ? v.z : v.w);
    return word >> (16 * (j % 2)) & 0xffffu;
}

// Splits x into fp16 parts whose sum is x to about 22 bits: the high part, then what it left.
__device__ __forceinline__ void split_half(float x, __half& hi, __half& lo)
{
    hi = __float2half_rn(x);
    lo = __float2half_rn(x - __half2float(hi));
}

// Code i of a q8 or q4 block, and the bits of that code as fp16 (exact: at most 127 in size).
__device__ __forceinline__ int code_at(const KvQ8Block& b, int i) { return b.q[i]; }
__device__ __forceinline__ int code_at(const KvQ4Block& b, int i) { return kv_q4_code(b, i); }
__device__ __forceinline__ uint32_t code_bits(int code) { return __half_as_ushort(__int2half_rn(code)); }

// The bits of value d of a stored row as fp16: an fp16 entry's own, a q8/q4 entry's value
// (scale * code, exact in float32) rounded to fp16.
template <typename S>
__device__ __forceinline__ uint32_t value_bits(const S* row, int d)
{
    if constexpr (kQuantized<S>)
        return __half_as_ushort(__float2half_rn(load_value(row, d)));
    else
        return __half_as_ushort(row[d]);
}

// Loads the keys of entries [t0, t0 + count) of KV head `kv_head` into the tile as rows (zeros
// past count, so masked keys meet finite values): fp16 rows 16 bytes at a time, q8/q4 keys as
// their codes with their scales beside them ([kKeys][HD / 32]).
template <int HD, typename K>
__device__ void load_key_tile(const KvBlockTable& cache, int t0, int count, int kv_head, __half* ks, float* k_scales)
{
    constexpr int chunks = HD / 8;  // pieces of 8 values of a head's row
    const int column = kv_head * HD;
    if constexpr (kQuantized<K>) {
        constexpr int blocks = HD / kKvBlockValues;
        for (int idx = threadIdx.x; idx < kKeys * blocks; idx += blockDim.x) {
            const int r = idx / blocks, b = idx % blocks;
            __half* dst = ks + r * (HD + kPad) + b * kKvBlockValues;
            if (r >= count) {
                for (int i = 0; i < kKvBlockValues; i += 2)
                    *reinterpret_cast<uint32_t*>(dst + i) = 0;
                k_scales[idx] = 0.0f;
                continue;
            }
            const K& block = at_column(entry_row<K>(cache, t0 + r, false), column)[b];
            for (int i = 0; i < kKvBlockValues; i += 2)
                *reinterpret_cast<uint32_t*>(dst + i) =
                    code_bits(code_at(block, i)) | code_bits(code_at(block, i + 1)) << 16;
            k_scales[idx] = scale_of(block.scale);
        }
    } else {
        for (int idx = threadIdx.x; idx < kKeys * chunks; idx += blockDim.x) {
            const int r = idx / chunks, c = idx % chunks;
            uint4 word = make_uint4(0, 0, 0, 0);
            if (r < count)
                word = *reinterpret_cast<const uint4*>(entry_row<__half>(cache, t0 + r, false) + column + c * 8);
            *reinterpret_cast<uint4*>(ks + r * (HD + kPad) + c * 8) = word;
        }
    }
}

// The values of the same entries, transposed (the B operand of P V wants two keys of one
// dimension in a register): fp16 as they are, q8/q4 as fp16 values.
template <int HD, typename V>
__device__ void load_value_tile(const KvBlockTable& cache, int t0, int count, int kv_head, __half* vt)
{
    constexpr int chunks = HD / 8;
    const int column = kv_head * HD;
    // One thread a pair of keys and 8 dimensions; neighbouring threads take neighbouring pairs,
    // so their 4-byte stores fall in different banks.
    constexpr int pairs = kKeys / 2;
    for (int idx = threadIdx.x; idx < pairs * chunks; idx += blockDim.x) {
        const int kp = idx % pairs, c = idx / pairs;
        const int r = 2 * kp;
        uint32_t* dst = reinterpret_cast<uint32_t*>(vt + c * 8 * (kKeys + kPad) + r);
        constexpr int dst_stride = (kKeys + kPad) / 2;  // words from one dimension's row to the next
        if constexpr (kQuantized<V>) {
            const V* first = r < count ? at_column(entry_row<V>(cache, t0 + r, true), column) : nullptr;
            const V* second = r + 1 < count ? at_column(entry_row<V>(cache, t0 + r + 1, true), column) : nullptr;
            for (int j = 0; j < 8; ++j) {
                const int d = c * 8 + j;
                dst[j * dst_stride] =
                    (first ? value_bits(first, d) : 0u) | (second ? value_bits(second, d) : 0u) << 16;
            }
        } else {
            uint4 first = make_uint4(0, 0, 0, 0), second = make_uint4(0, 0, 0, 0);
            if (r < count)
                first = *reinterpret_cast<const uint4*>(entry_row<__half>(cache, t0 + r, true) + column + c * 8);
            if (r + 1 < count)
                second =
                    *reinterpret_cast<const uint4*>(entry_row<__half>(cache, t0 + r + 1, true) + column + c * 8);
#pragma unroll
            for (int j = 0; j < 8; ++j)
                dst[j * dst_stride] = half_bits(first, j) | half_bits(second, j) << 16;
        }
    }
}

// The two (query row, head) pairs of this lane (fragment rows g and g + 8) among the 16 pairs
// of a warp from `pair0` on: pairs number rows * group, the heads of one KV head side by side.
struct LanePairs {
    int row[2], head[2];
    bool valid[2];
};
__device__ __forceinline__ LanePairs lane_pairs(const AttentionRows& p, int kv_head, int pair0, int g, int total_pairs)
{
    LanePairs lp;
#pragma unroll
    for (int k = 0; k < 2; ++k) {
        const int pair = pair0 + g + 8 * k;
        lp.valid[k] = pair < total_pairs;
        lp.row[k] = pair / p.group;
        lp.head[k] = kv_head * p.group + pair % p.group;
    }
    return lp;
}

// The lane's part of the warp's scaled queries as A fragments, high and low fp16 parts (zeros
// for pairs past the end).
template <int HD>
__device__ __forceinline__ void query_fragments(const AttentionRows& p, const LanePairs& lp, int c, MmaA* q_hi,
                                                MmaA* q_lo)
{
    const int q_width = p.n_heads * HD;
#pragma unroll
    for (int s = 0; s < HD / 16; ++s)
#pragma unroll
        for (int reg = 0; reg < 4; ++reg) {
            const int k = reg % 2, d = s * 16 + 2 * c + (reg >= 2 ? 8 : 0);
            float2 x = make_float2(0.0f, 0.0f);
            if (lp.valid[k])
                x = *reinterpret_cast<const float2*>(p.q + int64_t(lp.row[k]) * q_width + lp.head[k] * HD + d);
            __half h0, l0, h1, l1;
            split_half(x.x * p.scale, h0, l0);
            split_half(x.y * p.scale, h1, l1);
            q_hi[s].r[reg] = pack_half2(h0, h1);
            q_lo[s].r[reg] = pack_half2(l0, l1);
        }
}

// The scaled scores of the warp's 16 pairs against keys [8t, 8t + 8) of the key tile.
template <int HD, typename K>
__device__ __forceinline__ MmaC score_keys(const MmaA* q_hi, const MmaA* q_lo, const __half* ks, const float* k_scales,
                                           int t, int g, int c)
{
    MmaC s{{0.0f, 0.0f, 0.0f, 0.0f}};
    const __half* key = ks + (t * 8 + g) * (HD + kPad) + 2 * c;
    if constexpr (kQuantized<K>) {
        // Each block of 32 dimensions against the codes, then times its key's scale (this
        // lane's columns are keys 8t + 2c and + 1): the float32 kernel's sum of
        // q * (scale * code), in another order.
        constexpr int scale_blocks = HD / kKvBlockValues;
        const float* scale0 = k_scales + (t * 8 + 2 * c) * scale_blocks;
#pragma unroll
        for (int blk = 0; blk < scale_blocks; ++blk) {
            MmaC part{{0.0f, 0.0f, 0.0f, 0.0f}};
#pragma unroll
            for (int st = 2 * blk; st < 2 * blk + 2; ++st) {
                const MmaB b{{word_at(key + st * 16), word_at(key + st * 16 + 8)}};
                mma_16x8x16(part, q_hi[st], b);
                mma_16x8x16(part, q_lo[st], b);
            }
            const float first = scale0[blk], second = scale0[scale_blocks + blk];
            s.v[0] += part.v[0] * first;
            s.v[1] += part.v[1] * second;
            s.v[2] += part.v[2] * first;
            s.v[3] += part.v[3] * second;
        }
    } else {
#pragma unroll
        for (int st = 0; st < HD / 16; ++st) {
            const MmaB b{{word_at(key + st * 16), word_at(key + st * 16 + 8)}};
            mma_16x8x16(s, q_hi[st], b);
            mma_16x8x16(s, q_lo[st], b);
        }
    }
    return s;
}

template <int HD, typename K, typename V>
__global__ void __launch_bounds__(kWarps * 32) tensor_core_attention_kernel(Params p)
{
    wait_for_prior_grids();
    constexpr int key_tiles = kKeys / 8;  // n-tiles of the scores
    constexpr int dim_tiles = HD / 8;     // n-tiles of the output
    __half* ks = dynamic_shared_memory<__half>();
    __half* vt = ks + kKeys * (HD + kPad);
    float* k_scales = reinterpret_cast<float*>(vt + HD * (kKeys + kPad));  // q8/q4 keys' scales

    const int kv_head = blockIdx.y;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, c = lane % 4;
    const int total_pairs = p.n * p.group;
    const int first_visible = p.len - p.n;  // row i sees entries [0, first_visible + i]
    const int q_width = p.n_heads * HD;
    const int block_pair0 = blockIdx.x * kPairsPerBlock;
    const int block_visible = first_visible + (min(block_pair0 + kPairsPerBlock, total_pairs) - 1) / p.group + 1;

    // This lane's two pairs (fragment rows g and g + 8): their query rows, heads and the last
    // entry each sees. A pair past the end reads zeros and sees what the block sees.
    const int warp_pair0 = block_pair0 + warp * kPairsPerWarp;
    const LanePairs lp = lane_pairs(p, kv_head, warp_pair0, g, total_pairs);
    int last[2];
#pragma unroll
    for (int k = 0; k < 2; ++k)
        last[k] = lp.valid[k] ? first_visible + lp.row[k] : block_visible - 1;
    const bool warp_has_pairs = warp_pair0 < total_pairs;
    const int warp_visible =
        warp_has_pairs ? first_visible + (min(warp_pair0 + kPairsPerWarp, total_pairs) - 1) / p.group + 1 : 0;

    MmaA q_hi[HD / 16], q_lo[HD / 16];
    query_fragments<HD>(p, lp, c, q_hi, q_lo);

    MmaC o[dim_tiles];
#pragma unroll
    for (int t = 0; t < dim_tiles; ++t)
        o[t] = MmaC{{0.0f, 0.0f, 0.0f, 0.0f}};
    float m[2] = {-INFINITY, -INFINITY};
    float l[2] = {0.0f, 0.0f};  // this lane's part of each row's sum; the quad's add up at the end

    for (int t0 = 0; t0 < block_visible; t0 += kKeys) {
        __syncthreads();  // the previous tiles are consumed
        load_key_tile<HD, K>(p.cache, t0, min(kKeys, block_visible - t0), kv_head, ks, k_scales);
        load_value_tile<HD, V>(p.cache, t0, min(kKeys, block_visible - t0), kv_head, vt);
        __syncthreads();
        if (t0 >= warp_visible)
            continue;

        MmaC s[key_tiles];
#pragma unroll
        for (int t = 0; t < key_tiles; ++t)
            s[t] = score_keys<HD, K>(q_hi, q_lo, ks, k_scales, t, g, c);

        // Online softmax over the tile, rows g (k = 0) and g + 8 (k = 1).
        float tile_max[2] = {-INFINITY, -INFINITY};
#pragma unroll
        for (int t = 0; t < key_tiles; ++t)
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int k = i / 2, key = t0 + t * 8 + 2 * c + i % 2;
                if (key > last[k])
                    s[t].v[i] = -INFINITY;
                tile_max[k] = fmaxf(tile_max[k], s[t].v[i]);
            }
        float correction[2];
#pragma unroll
        for (int k = 0; k < 2; ++k) {
            tile_max[k] = fmaxf(tile_max[k], __shfl_xor_sync(kFullWarp, tile_max[k], 1));
            tile_max[k] = fmaxf(tile_max[k], __shfl_xor_sync(kFullWarp, tile_max[k], 2));
            const float m_new = fmaxf(m[k], tile_max[k]);  // finite: entry 0 is in the first tile
            correction[k] = expf(m[k] - m_new);
            m[k] = m_new;
            l[k] *= correction[k];
        }
#pragma unroll
        for (int t = 0; t < key_tiles; ++t)
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int k = i / 2;
                s[t].v[i] = expf(s[t].v[i] - m[k]);
                l[k] += s[t].v[i];
            }
#pragma unroll
        for (int t = 0; t < dim_tiles; ++t) {
            o[t].v[0] *= correction[0];
            o[t].v[1] *= correction[0];
            o[t].v[2] *= correction[1];
            o[t].v[3] *= correction[1];
        }

        // P V: the scores' C fragments of keys [16j, 16j + 16) are the A fragment of P.
#pragma unroll
        for (int j = 0; j < kKeys / 16; ++j) {
            const MmaC& lo_keys = s[2 * j];
            const MmaC& hi_keys = s[2 * j + 1];
            const MmaA prob{{pack_half2(__float2half_rn(lo_keys.v[0]), __float2half_rn(lo_keys.v[1])),
                             pack_half2(__float2half_rn(lo_keys.v[2]), __float2half_rn(lo_keys.v[3])),
                             pack_half2(__float2half_rn(hi_keys.v[0]), __float2half_rn(hi_keys.v[1])),
                             pack_half2(__float2half_rn(hi_keys.v[2]), __float2half_rn(hi_keys.v[3]))}};
#pragma unroll
            for (int t = 0; t < dim_tiles; ++t) {
                const __half* value = vt + (t * 8 + g) * (kKeys + kPad) + j * 16 + 2 * c;
                mma_16x8x16(o[t], prob, MmaB{{word_at(value), word_at(value + 8)}});
            }
        }
    }

#pragma unroll
    for (int k = 0; k < 2; ++k) {
        l[k] += __shfl_xor_sync(kFullWarp, l[k], 1);
        l[k] += __shfl_xor_sync(kFullWarp, l[k], 2);
    }
    if (!warp_has_pairs)
        return;
#pragma unroll
    for (int k = 0; k < 2; ++k) {
        if (!lp.valid[k])
            continue;
        const float inv_sum = 1.0f / l[k];
        __half* out = p.out + int64_t(lp.row[k]) * q_width + lp.head[k] * HD + 2 * c;
#pragma unroll
        for (int t = 0; t < dim_tiles; ++t)
            *reinterpret_cast<uint32_t*>(out + t * 8) =
                pack_half2(__float2half_rn(o[t].v[2 * k] * inv_sum), __float2half_rn(o[t].v[2 * k + 1] * inv_sum));
        if (p.stats && c == 0) {
            p.stats[(int64_t(lp.row[k]) * p.n_heads + lp.head[k]) * 2] = m[k];
            p.stats[(int64_t(lp.row[k]) * p.n_heads + lp.head[k]) * 2 + 1] = l[k];
        }
    }
}

struct ProbeParams : AttentionRows {
    const float* stats;
    int first_row;
    const float* row_weights;
    float* partials;  // [n_kv_heads, len]
};

template <int HD, typename K>
constexpr size_t probe_shared_bytes()
{
    return sizeof(__half) * kKeys * (HD + kPad) + (kQuantized<K> ? sizeof(float) * kKeys * (HD / kKvBlockValues) : 0) +
           sizeof(float) * kWarps * kKeys;
}

// Grid: x = tiles of kKeys entries, y = KV head. The block's key tile is loaded once; each warp
// takes 16 of the probed pairs at a time (the A rows, as in attention) against all of the tile's
// keys, and a lane adds up the weighted probabilities of its columns over its pairs. Lanes, then
// warps, are added in a fixed order, so the sums have the same bits in every run.
template <int HD, typename K>
__global__ void __launch_bounds__(kWarps * 32) tensor_core_probe_kernel(ProbeParams p)
{
    wait_for_prior_grids();
    constexpr int key_tiles = kKeys / 8;
    __half* ks = dynamic_shared_memory<__half>();
    float* k_scales = reinterpret_cast<float*>(ks + kKeys * (HD + kPad));
    float* warp_sums = k_scales + (kQuantized<K> ? kKeys * (HD / kKvBlockValues) : 0);  // [kWarps][kKeys]

    const int kv_head = blockIdx.y, t0 = blockIdx.x * kKeys;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, c = lane % 4;
    const int first_visible = p.len - p.n;
    const int tile_n = min(kKeys, p.len - t0);
    load_key_tile<HD, K>(p.cache, t0, tile_n, kv_head, ks, k_scales);
    __syncthreads();

    float sums[key_tiles][2] = {};  // this lane's columns 2c and 2c + 1 of each 8 keys
    const int total_pairs = p.n * p.group;
    // Rows before t0 - first_visible see none of this tile.
    const int pair_begin = max(p.first_row, t0 - first_visible) * p.group;
    for (int pair0 = pair_begin + warp * kPairsPerWarp; pair0 < total_pairs; pair0 += kPairsPerBlock) {
        const LanePairs lp = lane_pairs(p, kv_head, pair0, g, total_pairs);
        MmaA q_hi[HD / 16], q_lo[HD / 16];
        query_fragments<HD>(p, lp, c, q_hi, q_lo);
        float m[2], weight[2];
        int last[2];
#pragma unroll
        for (int k = 0; k < 2; ++k) {
            m[k] = 0.0f;
            weight[k] = 0.0f;
            last[k] = -1;  // a pair past the end adds nothing
            if (lp.valid[k]) {
                const float* st = p.stats + (int64_t(lp.row[k]) * p.n_heads + lp.head[k]) * 2;
                m[k] = st[0];
                weight[k] = p.row_weights[lp.row[k] - p.first_row] / float(p.n_heads) * (1.0f / st[1]);
                last[k] = first_visible + lp.row[k];
            }
        }
#pragma unroll
        for (int t = 0; t < key_tiles; ++t) {
            const MmaC s = score_keys<HD, K>(q_hi, q_lo, ks, k_scales, t, g, c);
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int k = i / 2, key = t0 + t * 8 + 2 * c + i % 2;
                if (key <= last[k])
                    sums[t][i % 2] += weight[k] * expf(s.v[i] - m[k]);
            }
        }
    }

    // Over the warp's rows (lanes of one c), then over the warps.
#pragma unroll
    for (int t = 0; t < key_tiles; ++t)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            float x = sums[t][j];
            x += __shfl_xor_sync(kFullWarp, x, 4);
            x += __shfl_xor_sync(kFullWarp, x, 8);
            x += __shfl_xor_sync(kFullWarp, x, 16);
            if (g == 0)
                warp_sums[warp * kKeys + t * 8 + 2 * c + j] = x;
        }
    __syncthreads();
    if (int(threadIdx.x) < tile_n) {
        float total = 0.0f;
        for (int w = 0; w < kWarps; ++w)
            total += warp_sums[w * kKeys + threadIdx.x];
        p.partials[int64_t(kv_head) * p.len + t0 + threadIdx.x] = total;
    }
}

void check_fits(const char* what, const KvBlockFormat& format, int n, int len, const AttentionDims& dims)
{
    if (!tensor_core_attention_fits(Precision::Fp16, format, dims.head_dim) || dims.n_kv_heads <= 0 ||
        dims.n_heads % dims.n_kv_heads != 0 || n < 0 || n > len)
        throw Error(std::string(what) + ": unsupported case (head_dim " + std::to_string(dims.head_dim) + ", heads " +
                    std::to_string(dims.n_heads) + "/" + std::to_string(dims.n_kv_heads) + ", rows " +
                    std::to_string(n) + " of " + std::to_string(len) +
                    "; it takes fp16, q8 or q4 entries under fp16 and head_dim 64 or 128)");
}

template <int HD, typename K, typename V>
void launch(const Params& p, int n_kv_heads, KernelStream stream)
{
    static_assert(shared_bytes<HD, K>() <= 48 * 1024, "no opt-in to more shared memory");
    const dim3 grid((p.n * p.group + kPairsPerBlock - 1) / kPairsPerBlock, n_kv_heads);
    launch_kernel(tensor_core_attention_kernel<HD, K, V>, grid, kWarps * 32, shared_bytes<HD, K>(), stream, p);
}

} // namespace

bool tensor_core_attention_fits(Precision type, const KvBlockFormat& format, int head_dim)
{
    return type == Precision::Fp16 && kv_types_supported(type, format.key_type, format.value_type) &&
           (head_dim == 64 || head_dim == 128);
}

void tensor_core_attention(const float* q, int n, const KvBlockTable& cache, int len, const AttentionDims& dims,
                           void* out, float* stats, KernelStream stream)
{
    check_fits("tensor_core_attention", cache.format, n, len, dims);
    if (n == 0)
        return;
    Params p{};
    static_cast<AttentionRows&>(p) = attention_rows(q, n, cache, len, dims);
    p.out = static_cast<__half*>(out);
    p.stats = stats;
    dispatch_stored_kv<__half>(cache.format, [&](auto* k, auto* v) {
        using K = std::remove_pointer_t<decltype(k)>;
        using V = std::remove_pointer_t<decltype(v)>;
        if (dims.head_dim == 64)
            launch<64, K, V>(p, dims.n_kv_heads, stream);
        else
            launch<128, K, V>(p, dims.n_kv_heads, stream);
    });
    check_launch("tensor_core_attention");
}

void tensor_core_probe_partials(const float* q, int n, const KvBlockTable& cache, int len, const AttentionDims& dims,
                                const float* stats, int first_row, const float* row_weights, float* partials,
                                KernelStream stream)
{
    check_fits("tensor_core_probe_partials", cache.format, n, len, dims);
    if (len == 0)
        return;
    ProbeParams p{};
    static_cast<AttentionRows&>(p) = attention_rows(q, n, cache, len, dims);
    p.stats = stats;
    p.first_row = first_row;
    p.row_weights = row_weights;
    p.partials = partials;
    const dim3 grid((len + kKeys - 1) / kKeys, dims.n_kv_heads);
    dispatch_stored_kv<__half>(cache.format, [&](auto* k, auto*) {
        using K = std::remove_pointer_t<decltype(k)>;
        const auto run = [&](auto kernel, size_t shared) {
            launch_kernel(kernel, grid, kWarps * 32, shared, stream, p);
        };
        if (dims.head_dim == 64)
            run(tensor_core_probe_kernel<64, K>, probe_shared_bytes<64, K>());
        else
            run(tensor_core_probe_kernel<128, K>, probe_shared_bytes<128, K>());
    });
    check_launch("tensor_core_probe_partials");
}

} // namespace pyramid::cuda
