#include "util/float16.h"

#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace pyramid {

uint16_t fp32_to_fp16(float f)
{
    const uint32_t bits = std::bit_cast<uint32_t>(f);
    const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
    const uint32_t abs = bits & 0x7fffffffu;
    if (abs >= 0x7f800000u)  // inf stays inf; NaN stays a (quiet) NaN
        return sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u);
    if (abs >= 0x477ff000u)  // rounds past the largest half (65504)
        return sign | 0x7c00u;
    if (abs < 0x38800000u) {  // below the smallest normal half: subnormal or zero
        if (abs < 0x33000000u)  // under half of the smallest subnormal: rounds to zero
            return sign;
        const uint32_t exponent = abs >> 23;
        const uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126 - exponent;  // 14..24 bits to drop
        uint32_t half = mantissa >> shift;
        const uint32_t rest = mantissa & ((1u << shift) - 1);
        const uint32_t halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (half & 1u)))
            ++half;
        return sign | static_cast<uint16_t>(half);
    }
    // Normal: rebias the exponent, round the 13 dropped mantissa bits to nearest even. A carry
    // out of the mantissa correctly bumps the exponent.
    uint32_t half = ((abs >> 13) - (112u << 10));
    const uint32_t rest = abs & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
        ++half;
    return sign | static_cast<uint16_t>(half);
}

uint16_t fp32_to_bf16(float f)
{
    const uint32_t bits = std::bit_cast<uint32_t>(f);
    if ((bits & 0x7fffffffu) > 0x7f800000u)  // NaN: force quiet, never round into inf
        return static_cast<uint16_t>((bits >> 16) | 0x40u);
    return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

namespace {

void fp32_to_fp16_scalar(const float* src, uint16_t* dst, int64_t n)
{
    for (int64_t i = 0; i < n; ++i)
        dst[i] = fp32_to_fp16(src[i]);
}

#if defined(__x86_64__) || defined(__i386__)
// vcvtps2ph rounds to nearest even, overflows to inf and makes subnormals as fp32_to_fp16 does;
// only a NaN differs (it keeps the payload's top bits), so eight values holding one go the
// scalar way. Storing a prompt's keys and values this way took 7% of its time.
__attribute__((target("avx,f16c"))) void fp32_to_fp16_f16c(const float* src, uint16_t* dst, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(src + i);
        if (_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)) != 0)
            fp32_to_fp16_scalar(src + i, dst + i, 8);
        else
            _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
    }
    fp32_to_fp16_scalar(src + i, dst + i, n - i);
}

bool has_f16c()
{
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    // F16C needs the AVX state the OS saves (OSXSAVE); CPUID leaf 1 names all three.
    return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) && (ecx & bit_AVX) && (ecx & bit_OSXSAVE);
}
#endif

} // namespace

void fp32_to_fp16_row(const float* src, uint16_t* dst, int64_t n)
{
#if defined(__x86_64__) || defined(__i386__)
    static const bool f16c = has_f16c();  // a property of the CPU, read once
    if (f16c) {
        fp32_to_fp16_f16c(src, dst, n);
        return;
    }
#endif
    fp32_to_fp16_scalar(src, dst, n);
}

void fp16_to_fp32_row(const void* src, float* dst, int64_t n)
{
    const auto* bytes = static_cast<const unsigned char*>(src);
    for (int64_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, bytes + 2 * i, 2);
        dst[i] = fp16_to_fp32(h);
    }
}

void bf16_to_fp32_row(const void* src, float* dst, int64_t n)
{
    const auto* bytes = static_cast<const unsigned char*>(src);
    for (int64_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, bytes + 2 * i, 2);
        dst[i] = bf16_to_fp32(h);
    }
}

} // namespace pyramid
