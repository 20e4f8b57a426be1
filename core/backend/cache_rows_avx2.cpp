// AVX2 kernels over float32 and fp16 cache rows (cache_rows.h). Bit-identical to the generic ones: the same
// eight lanes, a multiply then an add (no fused multiply-add: "fma" is left out of the target
// on purpose, so the compiler cannot fuse them), and the same scalar tail and final sum.
//
// Every function carries the target attribute instead of the whole file being compiled for
// AVX2: nothing here may run (or be merged into code that runs) on a CPU without it.
#include "backend/cache_rows.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define PYRAMID_AVX2_F16C __attribute__((target("avx2,f16c")))

namespace pyramid::cpu {
namespace {

PYRAMID_AVX2_F16C inline __m256 load8(const float* p) { return _mm256_loadu_ps(p); }
PYRAMID_AVX2_F16C inline __m256 load8(const Half* p)
{
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

template <typename Stored>
PYRAMID_AVX2_F16C float dot_row(const float* q, const Stored* row, int n)
{
    __m256 sums = _mm256_setzero_ps();
    const int whole = n - n % 8;
    for (int i = 0; i < whole; i += 8)
        sums = _mm256_add_ps(sums, _mm256_mul_ps(_mm256_loadu_ps(q + i), load8(row + i)));
    float lanes[8];
    _mm256_storeu_ps(lanes, sums);
    for (int i = whole; i < n; ++i)
        lanes[i - whole] += q[i] * as_float(row[i]);
    return ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5])) + ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]));
}

template <typename Stored>
PYRAMID_AVX2_F16C void dot_avx2(const float* q, const Stored* rows, int64_t stride, int count, int n, float* out)
{
    for (int j = 0; j < count; ++j)
        out[j] = dot_row(q, rows + j * stride, n);
}

template <typename Stored>
PYRAMID_AVX2_F16C void accumulate_avx2(const float* weights, const Stored* rows, int64_t stride, int count, int n,
                                       float* out)
{
    const int whole = n - n % 8;
    for (int j = 0; j < count; ++j) {
        const Stored* row = rows + j * stride;
        const __m256 w = _mm256_set1_ps(weights[j]);
        for (int d = 0; d < whole; d += 8)
            _mm256_storeu_ps(out + d, _mm256_add_ps(_mm256_loadu_ps(out + d), _mm256_mul_ps(w, load8(row + d))));
        for (int d = whole; d < n; ++d)
            out[d] += weights[j] * as_float(row[d]);
    }
}

} // namespace

template <typename Stored>
RowKernels<Stored> detail::row_kernels_avx2()
{
    return {dot_avx2<Stored>, accumulate_avx2<Stored>};
}
template RowKernels<float> detail::row_kernels_avx2();
template RowKernels<Half> detail::row_kernels_avx2();

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
} // namespace pyramid::cpu

#endif
