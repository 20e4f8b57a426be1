// AVX2 kernels over float32, fp16, q8 and q4 cache rows (cache_rows.h). Bit-identical to the generic ones: the same
// eight lanes, a multiply then an add (no fused multiply-add: "fma" is left out of the target
// on purpose, so the compiler cannot fuse them), and the same scalar tail and final sum.
//
// Every function carries the target attribute instead of the whole file being compiled for
// AVX2: nothing here may run (or be merged into code that runs) on a CPU without it.
#include "backend/cache_rows.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include <algorithm>
#include <type_traits>

#define PYRAMID_AVX2_F16C __attribute__((target("avx2,f16c")))

namespace pyramid::cpu {
namespace {

// Values i to i + 7 of a row as float32, value_at's floats; i is a multiple of 8.
PYRAMID_AVX2_F16C inline __m256 load8(const float* row, int i) { return _mm256_loadu_ps(row + i); }
PYRAMID_AVX2_F16C inline __m256 load8(const Half* row, int i)
{
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + i)));
}
// A block's codes times its scale, one multiply as value_at does it. F16C converts the scale
// in one instruction, exactly as to_float does.
PYRAMID_AVX2_F16C inline __m256 scaled(Half scale, __m256i codes)
{
    return _mm256_mul_ps(_mm256_set1_ps(_cvtsh_ss(scale.bits)), _mm256_cvtepi32_ps(codes));
}
PYRAMID_AVX2_F16C inline __m256 load8(const KvQ8Block* row, int i)
{
    const KvQ8Block& b = row[i / kKvBlockValues];
    const __m128i codes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(b.q + i % kKvBlockValues));
    return scaled(b.scale, _mm256_cvtepi8_epi32(codes));
}
PYRAMID_AVX2_F16C inline __m256 load8(const KvQ4Block* row, int i)
{
    constexpr int kHalf = kKvBlockValues / 2;
    const KvQ4Block& b = row[i / kKvBlockValues];
    const int at = i % kKvBlockValues;
    __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(b.q + at % kHalf));
    if (at >= kHalf)  // the block's second half is in the high nibbles
        bytes = _mm_srli_epi16(bytes, 4);
    const __m128i nibbles = _mm_and_si128(bytes, _mm_set1_epi8(0x0F));
    return scaled(b.scale, _mm256_sub_epi32(_mm256_cvtepu8_epi32(nibbles), _mm256_set1_epi32(8)));
}

// Where value `values` of a row starts, in bytes (at its block's start for quantized rows).
template <typename Stored>
constexpr size_t byte_offset(int values)
{
    return static_cast<size_t>(values / kValuesPerElement<Stored>) * sizeof(Stored);
}

// The generic kernel's final sum of a row's eight lanes, its scalar tail added first. Always
// inlined: called with a vector argument, it would leave the caller without the vzeroupper that
// spares the SSE code after it the cost of switching from AVX (softmax ran 4x slower).
template <typename Stored>
PYRAMID_AVX2_F16C __attribute__((always_inline)) inline float finish_dot(__m256 sums, const float* q, const Stored* row,
                                                                        int whole, int n)
{
    float lanes[8];
    _mm256_storeu_ps(lanes, sums);
    for (int i = whole; i < n; ++i)
        lanes[i - whole] += q[i] * value_at(row, i);
    return ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5])) + ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]));
}

// fp16 and quantized rows four at a time: each row's sum is still its own chain of adds in the
// generic order, but four independent chains keep the adder busy (one chain waits on the
// previous add's latency; decoding a quantized row adds more of them) and share each load of
// the query. Float32 rows go one at a time: taken four at a time they made a decode step
// slower, where reading twice the bytes is what takes the time (docs/perf/cpu-attention.md).
template <typename Stored>
PYRAMID_AVX2_F16C void dot_avx2(const float* q, const Stored* rows, int64_t stride, int count, int n, float* out)
{
    constexpr bool kFourRows = !std::is_same_v<Stored, float>;
    const int whole = n - n % 8;
    int j = 0;
    for (; kFourRows && j + 4 <= count; j += 4) {
        const Stored* r0 = rows + j * stride;
        const Stored* r1 = r0 + stride;
        const Stored* r2 = r1 + stride;
        const Stored* r3 = r2 + stride;
        __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(),
               s3 = _mm256_setzero_ps();
        for (int i = 0; i < whole; i += 8) {
            const __m256 x = _mm256_loadu_ps(q + i);
            s0 = _mm256_add_ps(s0, _mm256_mul_ps(x, load8(r0, i)));
            s1 = _mm256_add_ps(s1, _mm256_mul_ps(x, load8(r1, i)));
            s2 = _mm256_add_ps(s2, _mm256_mul_ps(x, load8(r2, i)));
            s3 = _mm256_add_ps(s3, _mm256_mul_ps(x, load8(r3, i)));
        }
        out[j] = finish_dot(s0, q, r0, whole, n);
        out[j + 1] = finish_dot(s1, q, r1, whole, n);
        out[j + 2] = finish_dot(s2, q, r2, whole, n);
        out[j + 3] = finish_dot(s3, q, r3, whole, n);
    }
    for (; j < count; ++j) {
        const Stored* row = rows + j * stride;
        __m256 sums = _mm256_setzero_ps();
        for (int i = 0; i < whole; i += 8)
            sums = _mm256_add_ps(sums, _mm256_mul_ps(_mm256_loadu_ps(q + i), load8(row, i)));
        out[j] = finish_dot(sums, q, row, whole, n);
    }
}

// Eight vectors of `out` (64 values) stay in registers while rows add to them, in row order as
// the generic kernel adds: `out` is read and written once per 64 values and group of rows
// instead of once per row. The rows go in groups small enough to stay in the L1 cache while
// each group's 64-value blocks are taken in turn.
template <typename Stored>
PYRAMID_AVX2_F16C void accumulate_avx2(const float* weights, const Stored* rows, int64_t stride, int count, int n,
                                       float* out)
{
    constexpr int kBlock = 64, kGroup = 32;
    const int blocks = n - n % kBlock, whole = n - n % 8;
    for (int j0 = 0; j0 < count; j0 += kGroup) {
        const int j1 = std::min(count, j0 + kGroup);
        for (int d0 = 0; d0 < blocks; d0 += kBlock) {
            __m256 acc[8];
            for (int v = 0; v < 8; ++v)
                acc[v] = _mm256_loadu_ps(out + d0 + 8 * v);
            for (int j = j0; j < j1; ++j) {
                const Stored* row = rows + j * stride;
                // The first block asks for the rest of the row: read in blocks, a row arrives
                // in pieces the hardware prefetcher does not foresee (a decode step ran slower).
                if (d0 == 0) {
                    const char* bytes = reinterpret_cast<const char*>(row);
                    for (size_t at = byte_offset<Stored>(kBlock); at < byte_offset<Stored>(n); at += 64)
                        _mm_prefetch(bytes + at, _MM_HINT_T0);
                }
                const __m256 w = _mm256_set1_ps(weights[j]);
                for (int v = 0; v < 8; ++v)
                    acc[v] = _mm256_add_ps(acc[v], _mm256_mul_ps(w, load8(row, d0 + 8 * v)));
            }
            for (int v = 0; v < 8; ++v)
                _mm256_storeu_ps(out + d0 + 8 * v, acc[v]);
        }
        for (int j = j0; j < j1 && blocks < n; ++j) {
            const Stored* row = rows + j * stride;
            const __m256 w = _mm256_set1_ps(weights[j]);
            for (int d = blocks; d < whole; d += 8)
                _mm256_storeu_ps(out + d, _mm256_add_ps(_mm256_loadu_ps(out + d), _mm256_mul_ps(w, load8(row, d))));
            for (int d = whole; d < n; ++d)
                out[d] += weights[j] * value_at(row, d);
        }
    }
}

// finish_dot's sums of eight rows' lanes at once, for rows without a scalar tail: s[k] holds
// dot k's lanes; lane k of the result is dot p(k) with p = 0, 2, 4, 6, 1, 3, 5, 7. Each dot's
// adds are finish_dot's, ((l0 + l4) + (l1 + l5)) + ((l2 + l6) + (l3 + l7)): the halves added
// lane by lane, then pairs of neighbours twice (hadd).
PYRAMID_AVX2_F16C __attribute__((always_inline)) inline __m256 finish_dots(const __m256 (&s)[8])
{
    __m256 halves[4];
    for (int k = 0; k < 4; ++k)
        halves[k] = _mm256_add_ps(_mm256_permute2f128_ps(s[2 * k], s[2 * k + 1], 0x20),
                                  _mm256_permute2f128_ps(s[2 * k], s[2 * k + 1], 0x31));
    return _mm256_hadd_ps(_mm256_hadd_ps(halves[0], halves[1]), _mm256_hadd_ps(halves[2], halves[3]));
}

// K queries (at most four) against two rows at a time: 2K chains of adds, each dot in
// dot_avx2's order, with each row's values loaded and decoded once for the K queries (dot_avx2
// decodes every row again for every query).
template <int K, typename Stored>
PYRAMID_AVX2_F16C __attribute__((always_inline)) inline void dot_some_queries(const float* const (&qs)[4],
                                                                              const Stored* rows, int64_t stride,
                                                                              int count, int n, float* const (&os)[4])
{
    const int whole = n - n % 8;
    for (int j = 0; j < count; j += 2) {
        // An odd last row is taken twice and its second dots dropped.
        const Stored* row[2] = {rows + j * stride, j + 1 < count ? rows + (j + 1) * stride : rows + j * stride};
        __m256 s[8];  // s[2k + c]: query k, row c; those of queries past K stay zero
        for (__m256& x : s)
            x = _mm256_setzero_ps();
        for (int i = 0; i < whole; i += 8) {
            const __m256 a = load8(row[0], i), b = load8(row[1], i);
            for (int k = 0; k < K; ++k) {
                const __m256 x = _mm256_loadu_ps(qs[k] + i);
                s[2 * k] = _mm256_add_ps(s[2 * k], _mm256_mul_ps(x, a));
                s[2 * k + 1] = _mm256_add_ps(s[2 * k + 1], _mm256_mul_ps(x, b));
            }
        }
        const int rows_here = j + 1 < count ? 2 : 1;
        if (whole == n) {
            float dots[8];  // query k's dot with row c at 4c + k
            _mm256_storeu_ps(dots, finish_dots(s));
            for (int c = 0; c < rows_here; ++c)
                for (int k = 0; k < K; ++k)
                    os[k][j + c] = dots[4 * c + k];
        } else {
            for (int c = 0; c < rows_here; ++c)
                for (int k = 0; k < K; ++k)
                    os[k][j + c] = finish_dot(s[2 * k + c], qs[k], row[c], whole, n);
        }
    }
}

// Queries four at a time, then the two or three left together; a last single query goes
// through dot_avx2, whose four rows at a time keep as many chains going. A decode step's query
// heads that share a KV head (three in SmolLM2, four in Llama 3) come here together.
template <typename Stored>
PYRAMID_AVX2_F16C void dot_queries_avx2(const float* q, int64_t q_stride, int n_q, const Stored* rows, int64_t stride,
                                        int count, int n, float* out, int64_t out_stride)
{
    for (int r = 0; r < n_q; r += 4) {
        const int k_here = std::min(4, n_q - r);
        if (k_here == 1) {
            dot_avx2(q + r * q_stride, rows, stride, count, n, out + r * out_stride);
            break;
        }
        const float* qs[4] = {};
        float* os[4] = {};
        for (int k = 0; k < k_here; ++k) {
            qs[k] = q + (r + k) * q_stride;
            os[k] = out + (r + k) * out_stride;
        }
        switch (k_here) {
        case 4: dot_some_queries<4>(qs, rows, stride, count, n, os); break;
        case 3: dot_some_queries<3>(qs, rows, stride, count, n, os); break;
        default: dot_some_queries<2>(qs, rows, stride, count, n, os);
        }
    }
}

// Rows j0 to j1 - 1 added, in order, into values d0 to d0 + 8 * V - 1 of K outputs, which
// stay in registers meanwhile: K * V chains, each row's values decoded once for the K.
template <int K, int V, typename Stored>
PYRAMID_AVX2_F16C __attribute__((always_inline)) inline void accumulate_some(const float* const (&w)[4],
                                                                             const Stored* rows, int64_t stride,
                                                                             int j0, int j1, int d0,
                                                                             float* const (&o)[4])
{
    __m256 acc[K][V];
    for (int k = 0; k < K; ++k)
        for (int v = 0; v < V; ++v)
            acc[k][v] = _mm256_loadu_ps(o[k] + d0 + 8 * v);
    for (int j = j0; j < j1; ++j) {
        const Stored* row = rows + j * stride;
        __m256 x[V];
        for (int v = 0; v < V; ++v)
            x[v] = load8(row, d0 + 8 * v);
        for (int k = 0; k < K; ++k) {
            const __m256 weight = _mm256_set1_ps(w[k][j]);
            for (int v = 0; v < V; ++v)
                acc[k][v] = _mm256_add_ps(acc[k][v], _mm256_mul_ps(weight, x[v]));
        }
    }
    for (int k = 0; k < K; ++k)
        for (int v = 0; v < V; ++v)
            _mm256_storeu_ps(o[k] + d0 + 8 * v, acc[k][v]);
}

// K weight lists (at most four) over the same rows: 16 values of each of the K outputs stay in
// registers while a group of rows adds to them, each value adding the rows in ascending j as
// accumulate_avx2 does; a row's values are decoded once for the K instead of once per output.
template <int K, typename Stored>
PYRAMID_AVX2_F16C void accumulate_some_queries(const float* const (&w)[4], const Stored* rows, int64_t stride,
                                               int count, int n, float* const (&o)[4])
{
    constexpr int kBlock = 16, kGroup = 32;
    const int blocks = n - n % kBlock, whole = n - n % 8;
    for (int j0 = 0; j0 < count; j0 += kGroup) {
        const int j1 = std::min(count, j0 + kGroup);
        // As in accumulate_avx2, the rest of each row is asked for ahead of the blocks.
        for (int j = j0; j < j1; ++j) {
            const char* bytes = reinterpret_cast<const char*>(rows + j * stride);
            for (size_t at = 64; at < byte_offset<Stored>(n); at += 64)
                _mm_prefetch(bytes + at, _MM_HINT_T0);
        }
        for (int d0 = 0; d0 < blocks; d0 += kBlock)
            accumulate_some<K, 2>(w, rows, stride, j0, j1, d0, o);
        if (whole > blocks)
            accumulate_some<K, 1>(w, rows, stride, j0, j1, blocks, o);
        for (int k = 0; k < K; ++k)
            for (int j = j0; j < j1; ++j)
                for (int d = whole; d < n; ++d)
                    o[k][d] += w[k][j] * value_at(rows + j * stride, d);
    }
}

// Lists four at a time, then the two or three left together; a last single list goes through
// accumulate_avx2 (as dot_queries_avx2 splits its queries).
template <typename Stored>
PYRAMID_AVX2_F16C void accumulate_queries_avx2(const float* weights, int64_t w_stride, int n_q, const Stored* rows,
                                               int64_t stride, int count, int n, float* out, int64_t out_stride)
{
    for (int r = 0; r < n_q; r += 4) {
        const int k_here = std::min(4, n_q - r);
        if (k_here == 1) {
            accumulate_avx2(weights + r * w_stride, rows, stride, count, n, out + r * out_stride);
            break;
        }
        const float* w[4] = {};
        float* o[4] = {};
        for (int k = 0; k < k_here; ++k) {
            w[k] = weights + (r + k) * w_stride;
            o[k] = out + (r + k) * out_stride;
        }
        switch (k_here) {
        case 4: accumulate_some_queries<4>(w, rows, stride, count, n, o); break;
        case 3: accumulate_some_queries<3>(w, rows, stride, count, n, o); break;
        default: accumulate_some_queries<2>(w, rows, stride, count, n, o);
        }
    }
}

} // namespace

template <typename Stored>
RowKernels<Stored> detail::row_kernels_avx2()
{
    return {dot_avx2<Stored>, accumulate_avx2<Stored>, dot_queries_avx2<Stored>, accumulate_queries_avx2<Stored>};
}
template RowKernels<float> detail::row_kernels_avx2();
template RowKernels<Half> detail::row_kernels_avx2();
template RowKernels<KvQ8Block> detail::row_kernels_avx2();
template RowKernels<KvQ4Block> detail::row_kernels_avx2();

} // namespace pyramid::cpu

#else

namespace pyramid::cpu {
template <typename Stored>
RowKernels<Stored> detail::row_kernels_avx2()
{
    return row_kernels<Stored>(KernelIsa::Generic);
}
template RowKernels<float> detail::row_kernels_avx2();
template RowKernels<Half> detail::row_kernels_avx2();
template RowKernels<KvQ8Block> detail::row_kernels_avx2();
template RowKernels<KvQ4Block> detail::row_kernels_avx2();
} // namespace pyramid::cpu

#endif
