#pragma once
// AVX2 pieces the quantized CPU kernels share (x86 only; include inside an x86 guard).
// Every function carries the target attribute instead of the file being compiled for AVX2,
// so nothing here can run, or be merged into code that runs, on a CPU without it.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "model/quant_block_fields.h"

#define PYRAMID_AVX2 __attribute__((target("avx2,fma,f16c")))
// The AVX512-VNNI kernels (int8_lanes_vnni.h, int8_token_rows_vnni.h) build on these pieces,
// with the features KernelIsa::Avx512Vnni asks the CPU for.
#define PYRAMID_AVX512VNNI __attribute__((target("avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")))

namespace pyramid::cpu::avx2 {

// F16C converts exactly, as quant::half_at does, in one instruction instead of a dozen.
PYRAMID_AVX2 inline float half_at(const uint8_t* p)
{
    uint16_t h;
    std::memcpy(&h, p, 2);
    return _cvtsh_ss(h);
}

// Weight rows stream from memory once per product, back to back, and the hardware prefetcher
// alone leaves the kernels waiting on their weight loads (perf). So each step over `bytes` of
// a row asks for the same span kPrefetchBytes further on (into the next row at the end; past
// the matrix's end a prefetch is only a hint, never a fault). 1-4 KiB measured alike.
constexpr uintptr_t kPrefetchBytes = 2048;

PYRAMID_AVX2 inline void prefetch_ahead(const void* step, size_t bytes)
{
    const uintptr_t ahead = reinterpret_cast<uintptr_t>(step) + kPrefetchBytes;
    for (size_t offset = 0; offset < bytes; offset += 64)
        _mm_prefetch(reinterpret_cast<const char*>(ahead + offset), _MM_HINT_T0);
}

PYRAMID_AVX2 inline __m256i load32(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
PYRAMID_AVX2 inline __m256i bytes(int v) { return _mm256_set1_epi8(static_cast<char>(v)); }

// The 32-bit word stored (unaligned) at p.
inline uint32_t u32_at(const uint8_t* p)
{
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// Byte i = value where byte i of v has every bit of mask set (mask: one bit per byte), else 0.
PYRAMID_AVX2 inline __m256i where_bits(__m256i v, __m256i mask, int value)
{
    return _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(v, mask), mask), bytes(value));
}

// 16 packed bytes of nibbles as 32 bytes in element order: low nibbles (elements 0..15),
// then high nibbles (16..31), the layout of Q4_0/Q4_1/Q5_0/Q5_1.
PYRAMID_AVX2 inline __m256i nibbles32(const uint8_t* qs)
{
    const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs));
    const __m128i mask = _mm_set1_epi8(0x0f);
    const __m128i lo = _mm_and_si128(packed, mask);
    const __m128i hi = _mm_and_si128(_mm_srli_epi16(packed, 4), mask);
    return _mm256_set_m128i(hi, lo);
}

// Byte j is 0x10 when bit j of `bits` is set, else 0: the fifth bits of Q5_0/Q5_1.
PYRAMID_AVX2 inline __m256i fifth_bits(uint32_t bits)
{
    // Byte j gets byte j/8 of the word, then keeps only its bit j%8.
    const __m256i spread = _mm256_shuffle_epi8(
        _mm256_set1_epi32(static_cast<int>(bits)),
        _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3));
    return where_bits(spread, _mm256_set1_epi64x(0x8040201008040201LL), 0x10);
}

// The 32 values of a block of 32 with packed nibbles, unsigned and in element order: 0..15
// for Q4_0 and Q4_1, 0..31 for Q5_0 and Q5_1 with their fifth bits. Layout is the block's
// layout (quant_block_layout.h); a layout with a kQh field has fifth bits.
template <typename Layout>
PYRAMID_AVX2 inline __m256i nibble_block_values(const uint8_t* blk)
{
    const __m256i low = nibbles32(blk + Layout::kQs);
    if constexpr (requires { Layout::kQh; })
        return _mm256_or_si256(low, fifth_bits(u32_at(blk + Layout::kQh)));
    else
        return low;
}

// The unsigned 6-bit values (0..63) of one half (128 weights) of a Q6_K super-block `blk`,
// as four vectors of 32 bytes: q[k] holds weights 32k..32k+31 of the half. Each half is 64
// bytes of low nibbles (ql) and 32 bytes of 2-bit high parts (qh); byte l of qh serves
// weights l, l+32, l+64 and l+96.
PYRAMID_AVX2 inline void unpack_q6_k_half(const uint8_t* blk, int half, __m256i q[4])
{
    using block_layout::Q6_K;
    const __m256i ql0 = load32(blk + Q6_K::kQl + 64 * half);
    const __m256i ql1 = load32(blk + Q6_K::kQl + 64 * half + 32);
    const __m256i qh = load32(blk + Q6_K::kQh + 32 * half);
    const __m256i lo = bytes(0x0f);
    q[0] = _mm256_or_si256(_mm256_and_si256(ql0, lo), _mm256_slli_epi16(_mm256_and_si256(qh, bytes(0x03)), 4));
    q[1] = _mm256_or_si256(_mm256_and_si256(ql1, lo), _mm256_slli_epi16(_mm256_and_si256(qh, bytes(0x0c)), 2));
    q[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), lo), _mm256_and_si256(qh, bytes(0x30)));
    q[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), lo),
                           _mm256_srli_epi16(_mm256_and_si256(qh, bytes(0xc0)), 2));
}

} // namespace pyramid::cpu::avx2
