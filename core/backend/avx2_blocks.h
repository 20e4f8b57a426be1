#pragma once
// AVX2 pieces the quantized CPU kernels share (x86 only; include inside an x86 guard).
// Every function carries the target attribute instead of the file being compiled for AVX2,
// so nothing here can run, or be merged into code that runs, on a CPU without it.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "util/float16.h"

#define PYRAMID_AVX2 __attribute__((target("avx2,fma,f16c")))

namespace pyramid::cpu::avx2 {

// The fp16 scale stored at p (blocks keep it unaligned).
inline float half_at(const uint8_t* p)
{
    uint16_t h;
    std::memcpy(&h, p, 2);
    return fp16_to_fp32(h);
}

PYRAMID_AVX2 inline __m256i load32(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
PYRAMID_AVX2 inline __m256i bytes(int v) { return _mm256_set1_epi8(static_cast<char>(v)); }

// The unsigned 6-bit values (0..63) of one half (128 weights) of a Q6_K super-block `blk`,
// as four vectors of 32 bytes: q[k] holds weights 32k..32k+31 of the half. Each half is 64
// bytes of low nibbles (ql) and 32 bytes of 2-bit high parts (qh); byte l of qh serves
// weights l, l+32, l+64 and l+96.
PYRAMID_AVX2 inline void unpack_q6_k_half(const uint8_t* blk, int half, __m256i q[4])
{
    const __m256i ql0 = load32(blk + 64 * half);
    const __m256i ql1 = load32(blk + 64 * half + 32);
    const __m256i qh = load32(blk + 128 + 32 * half);
    const __m256i lo = bytes(0x0f);
    q[0] = _mm256_or_si256(_mm256_and_si256(ql0, lo), _mm256_slli_epi16(_mm256_and_si256(qh, bytes(0x03)), 4));
    q[1] = _mm256_or_si256(_mm256_and_si256(ql1, lo), _mm256_slli_epi16(_mm256_and_si256(qh, bytes(0x0c)), 2));
    q[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), lo), _mm256_and_si256(qh, bytes(0x30)));
    q[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), lo),
                           _mm256_srli_epi16(_mm256_and_si256(qh, bytes(0xc0)), 2));
}

} // namespace pyramid::cpu::avx2
