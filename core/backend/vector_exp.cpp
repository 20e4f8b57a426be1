#include "backend/vector_exp.h"

#include <cmath>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <sleef.h>

// sleef.h declares its AVX2 and AVX-512 functions only in a file compiled for those
// instruction sets (__AVX__, __AVX512F__); this file is compiled for baseline x86-64 and sets
// the instruction set per function, so it declares the two it calls as sleef.h would.
extern "C" {
__attribute__((target("avx2,fma"), const)) __m256 Sleef_finz_expf8_u10avx2(__m256);
__attribute__((target("avx512f"), const)) __m512 Sleef_finz_expf16_u10avx512f(__m512);
}

namespace pyramid::cpu {
namespace {

__attribute__((target("avx2,fma"))) void exp_avx2(float* v, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(v + i, Sleef_finz_expf8_u10avx2(_mm256_loadu_ps(v + i)));
    if (i < n) {
        const __m256i lanes = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n - i)),
                                                 _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        _mm256_maskstore_ps(v + i, lanes, Sleef_finz_expf8_u10avx2(_mm256_maskload_ps(v + i, lanes)));
    }
}

__attribute__((target("avx512f"))) void exp_avx512(float* v, int64_t n)
{
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(v + i, Sleef_finz_expf16_u10avx512f(_mm512_loadu_ps(v + i)));
    if (i < n) {
        const __mmask16 lanes = static_cast<__mmask16>((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(v + i, lanes, Sleef_finz_expf16_u10avx512f(_mm512_maskz_loadu_ps(lanes, v + i)));
    }
}

} // namespace

void exp_in_place(float* v, int64_t n, KernelIsa isa)
{
    switch (isa) {
    case KernelIsa::Avx512Vnni: exp_avx512(v, n); return;
    case KernelIsa::Avx2: exp_avx2(v, n); return;
    case KernelIsa::Generic: break;
    }
    for (int64_t i = 0; i < n; ++i)
        v[i] = std::exp(v[i]);
}

} // namespace pyramid::cpu

#else // not x86: the C library's expf (kernel_isa_supported names no other instruction set here)

namespace pyramid::cpu {
void exp_in_place(float* v, int64_t n, KernelIsa)
{
    for (int64_t i = 0; i < n; ++i)
        v[i] = std::exp(v[i]);
}
} // namespace pyramid::cpu

#endif
