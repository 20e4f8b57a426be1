// The one-token AVX512-VNNI kernels (int8_token_rows_vnni.h), on 256-bit vectors: Zen 4 runs
// a 512-bit operation as two 256-bit halves, so wider vectors would save no work here.
#if defined(__x86_64__) || defined(__i386__)
#include "backend/int8_token_rows_vnni.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "backend/int8_rows_avx2.h"

namespace pyramid::cpu::int8_vnni {
namespace {

using namespace avx2;
using namespace block_layout;
using int8_avx2::k4_scale_min_bytes;

// One token's activations (Int8Activations' row layout).
struct Token {
    const int8_t* q;
    const float* scale;        // per block of 32
    const int16_t* group_sum;  // per 16 values
};

// Eight int32 lanes of 4 byte products each: the 32 weights u (unsigned) of one block times
// its 32 activations x. Lanes 0-3 cover the block's first 16 weights, lanes 4-7 the rest.
PYRAMID_AVX512VNNI inline __m256i block_dot(__m256i u, __m256i x)
{
    return _mm256_dpbusd_epi32(_mm256_setzero_si256(), u, x);
}

// The lane sums of blocks 0-3 (d[0..3]) by halves: lanes 0-3 hold the first-half sums of
// blocks 0, 1, 2, 3 and lanes 4-7 their second-half sums.
PYRAMID_AVX512VNNI inline __m256i half_sums(const __m256i* d)
{
    return _mm256_hadd_epi32(_mm256_hadd_epi32(d[0], d[1]), _mm256_hadd_epi32(d[2], d[3]));
}

// Block b's whole sum in lane b, from the half sums of blocks 0-3 and 4-7.
PYRAMID_AVX512VNNI inline __m256i block_sums(__m256i first4, __m256i last4)
{
    return _mm256_add_epi32(_mm256_permute2x128_si256(first4, last4, 0x20),
                            _mm256_permute2x128_si256(first4, last4, 0x31));
}

// Sixteen int16 values v[0..15] (one per 16 weights of a super-block) as int32 laid out like
// half_sums: v[0], v[2], v[4], v[6], v[1], v[3], v[5], v[7] for blocks 0-3 in first4, the same
// of v[8..15] for blocks 4-7 in last4.
PYRAMID_AVX512VNNI inline void as_half_lanes(__m256i v, __m256i& first4, __m256i& last4)
{
    const __m256i even = _mm256_srai_epi32(_mm256_slli_epi32(v, 16), 16);
    const __m256i odd = _mm256_srai_epi32(v, 16);
    first4 = _mm256_permute2x128_si256(even, odd, 0x20);
    last4 = _mm256_permute2x128_si256(even, odd, 0x31);
}

// Eight bytes as eight floats.
PYRAMID_AVX512VNNI inline __m256 as_floats(uint64_t bytes8)
{
    return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<int64_t>(bytes8))));
}

// Q4_K (with_fifth_bit false) and Q5_K: w = (d * sc_j) * q - (dmin * m_j) for block j of a
// super-block. The eight blocks' integer sums of q * x are converted together and meet
// (d * sc_j) * (activation scale); the minimums meet (activation scale) * (block sum of x).
template <bool with_fifth_bit>
PYRAMID_AVX512VNNI __m256 k4_row(const uint8_t* row, int64_t cols, const Token& x)
{
    using L = std::conditional_t<with_fifth_bit, Q5_K, Q4_K>;
    constexpr size_t kBytes = L::kBytes;
    __m256 acc = _mm256_setzero_ps(), acc_min = acc;
    for (int64_t s = 0; s < cols / QK_K; ++s) {
        __m256i xq[8];
        for (int b = 0; b < 8; ++b)
            xq[b] = load32(x.q + 256 * s + 32 * b);
        const __m256 x_scales = _mm256_loadu_ps(x.scale + 8 * s);
        const __m256i x_sums = _mm256_madd_epi16(load32(x.group_sum + 16 * s), _mm256_set1_epi16(1));
        const __m256 scaled_sums = _mm256_mul_ps(x_scales, _mm256_cvtepi32_ps(x_sums));
        const uint8_t* blk = row + s * kBytes;
        prefetch_ahead(blk, kBytes);
        const uint8_t* qs = blk + L::kQs;
        __m256i d[8];
        __m256i qh = with_fifth_bit ? load32(blk + Q5_K::kQh) : _mm256_setzero_si256();
        for (int j = 0; j < 4; ++j) {
            __m256i low, high;
            int8_avx2::k4_group_pair<with_fifth_bit>(load32(qs + 32 * j), qh, low, high);
            if constexpr (with_fifth_bit)
                qh = _mm256_srli_epi16(qh, 2);
            d[2 * j] = block_dot(low, xq[2 * j]);
            d[2 * j + 1] = block_dot(high, xq[2 * j + 1]);
        }
        uint64_t scale_bytes, min_bytes;
        k4_scale_min_bytes(blk + L::kScales, scale_bytes, min_bytes);
        const __m256 factors =
            _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(half_at(blk + L::kD)), as_floats(scale_bytes)), x_scales);
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(block_sums(half_sums(d), half_sums(d + 4))), factors, acc);
        acc_min = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_set1_ps(half_at(blk + L::kDmin)), as_floats(min_bytes)),
                                  scaled_sums, acc_min);
    }
    return _mm256_sub_ps(acc, acc_min);
}

// Q6_K: w = d * sc * (q - 32), one int8 scale sc per 16 weights. Per half block, the integer
// sum of q * x less 32 * (the activations' sum), times sc, is exact (|sum| < 2^24: 32 weights,
// |sc| <= 128, |q - 32| <= 32, |x| <= 127), so the scales and offsets stay in integers and
// the eight block sums meet d * (activation scale) once.
PYRAMID_AVX512VNNI __m256 q6_k_row(const uint8_t* row, int64_t cols, const Token& x)
{
    __m256 acc = _mm256_setzero_ps();
    for (int64_t s = 0; s < cols / QK_K; ++s) {
        __m256i xq[8];
        for (int b = 0; b < 8; ++b)
            xq[b] = load32(x.q + 256 * s + 32 * b);
        const __m256 x_scales = _mm256_loadu_ps(x.scale + 8 * s);
        // 32 * the activations' sums per 16, shifted in int32: 32 * 2032 overflows int16.
        __m256i offsets0, offsets1;
        as_half_lanes(load32(x.group_sum + 16 * s), offsets0, offsets1);
        offsets0 = _mm256_slli_epi32(offsets0, 5);
        offsets1 = _mm256_slli_epi32(offsets1, 5);
        const uint8_t* blk = row + s * Q6_K::kBytes;
        prefetch_ahead(blk, Q6_K::kBytes);
        __m256i d[8];
        for (int half = 0; half < 2; ++half) {
            __m256i q[4];
            unpack_q6_k_half(blk, half, q);
            for (int k = 0; k < 4; ++k)
                d[4 * half + k] = block_dot(q[k], xq[4 * half + k]);
        }
        __m256i scales0, scales1;
        as_half_lanes(_mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + Q6_K::kScales))),
                      scales0, scales1);
        const __m256i first4 = _mm256_mullo_epi32(_mm256_sub_epi32(half_sums(d), offsets0), scales0);
        const __m256i last4 = _mm256_mullo_epi32(_mm256_sub_epi32(half_sums(d + 4), offsets1), scales1);
        const __m256 factors = _mm256_mul_ps(_mm256_set1_ps(half_at(blk + Q6_K::kD)), x_scales);
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(block_sums(first4, last4)), factors, acc);
    }
    return acc;
}

// The 32-element block types, eight blocks at a time: u = q + offset (unsigned), whose integer
// sum less offset * (the activations' block sum) is the block's exact dot. Q4_1/Q5_1 have no
// offset; their minimum m meets (activation scale) * (block sum of x).
struct Q8_0Block {
    using L = Q8_0;
    static constexpr int kOffsetShift = 7;
    static constexpr bool kMins = false;
    PYRAMID_AVX2 static __m256i decode(const uint8_t* blk) { return _mm256_xor_si256(load32(blk + Q8_0::kQs), bytes(0x80)); }
};

template <bool with_fifth_bit>
struct Q4_0Block {
    using L = std::conditional_t<with_fifth_bit, Q5_0, Q4_0>;
    static constexpr int kOffsetShift = with_fifth_bit ? 4 : 3;
    static constexpr bool kMins = false;
    PYRAMID_AVX2 static __m256i decode(const uint8_t* blk)
    {
        return nibble_block_values<L>(blk);
    }
};

template <bool with_fifth_bit>
struct Q4_1Block {
    using L = std::conditional_t<with_fifth_bit, Q5_1, Q4_1>;
    static constexpr int kOffsetShift = 0;
    static constexpr bool kMins = true;
    PYRAMID_AVX2 static __m256i decode(const uint8_t* blk)
    {
        return nibble_block_values<L>(blk);
    }
};

// Four 32-bit values in a vector, inserted one by one: GCC builds a _mm256_setr_epi32 of eight
// loads in memory.
PYRAMID_AVX512VNNI inline __m128i four_words(int32_t w0, int32_t w1, int32_t w2, int32_t w3)
{
    return _mm_insert_epi32(_mm_insert_epi32(_mm_insert_epi32(_mm_cvtsi32_si128(w0), w1, 1), w2, 2), w3, 3);
}

// The 32-bit words at the fp16 scale d of `count` (<= 8) consecutive blocks of L, 0 past
// count: d in each word's low half and the two bytes after it (Q4_1's and Q5_1's minimum m,
// the others' first quants, still inside the block) in its high half. A word a load, built in
// registers: two bytes at a time took about as many instructions as the group's dots, and a
// partial group staged in memory (SmolLM2's rows of 576 values end in two blocks) missed store
// forwarding on its 16-byte reload.
template <typename L>
PYRAMID_AVX512VNNI inline __m256i scale_words(const uint8_t* blocks, int count)
{
    static_assert(L::kD + 4 <= L::kBytes, "the 32-bit load must stay inside the block");
    const auto at = [blocks](int i) {
        int32_t word;
        std::memcpy(&word, blocks + i * L::kBytes + L::kD, sizeof word);
        return word;
    };
    if (count == 8)
        return _mm256_inserti128_si256(_mm256_castsi128_si256(four_words(at(0), at(1), at(2), at(3))),
                                       four_words(at(4), at(5), at(6), at(7)), 1);
    const auto upto = [&at, count](int i) { return i < count ? at(i) : 0; };
    return _mm256_inserti128_si256(_mm256_castsi128_si256(four_words(upto(0), upto(1), upto(2), upto(3))),
                                   four_words(upto(4), upto(5), upto(6), upto(7)), 1);
}

// The fp16 values in the low (High false) or high halves of eight 32-bit words, as floats.
template <bool High>
PYRAMID_AVX512VNNI inline __m256 halves_as_floats(__m256i words)
{
    return _mm256_cvtph_ps(_mm256_cvtepi32_epi16(High ? _mm256_srli_epi32(words, 16) : words));
}

// Eight values of T from p, 0 past count (a row's last, partial group of blocks).
template <typename T>
PYRAMID_AVX512VNNI inline __m256i load_upto(const T* p, int count)
{
    const __mmask32 keep = count * sizeof(T) >= 32 ? ~__mmask32(0) : (__mmask32(1) << (count * sizeof(T))) - 1;
    return _mm256_maskz_loadu_epi8(keep, p);
}

template <typename Type>
PYRAMID_AVX512VNNI __m256 block32_row(const uint8_t* row, int64_t cols, const Token& x)
{
    using L = typename Type::L;
    __m256 acc = _mm256_setzero_ps(), acc_min = acc;
    const int64_t blocks = cols / QK;
    for (int64_t b0 = 0; b0 < blocks; b0 += 8) {
        const int count = static_cast<int>(std::min<int64_t>(8, blocks - b0));
        const uint8_t* blk = row + b0 * L::kBytes;
        prefetch_ahead(blk, 8 * L::kBytes);
        __m256i d[8];
        for (int i = 0; i < 8; ++i)
            d[i] = i < count ? block_dot(Type::decode(blk + i * L::kBytes), load32(x.q + 32 * (b0 + i)))
                             : _mm256_setzero_si256();
        // The activations' block sums (two per block in group_sum) and scales; 0 past count.
        const __m256i x_sums = _mm256_madd_epi16(load_upto(x.group_sum + 2 * b0, 2 * count), _mm256_set1_epi16(1));
        const __m256 x_scales = _mm256_castsi256_ps(load_upto(x.scale + b0, count));
        __m256i sums = block_sums(half_sums(d), half_sums(d + 4));
        if constexpr (Type::kOffsetShift != 0)
            sums = _mm256_sub_epi32(sums, _mm256_slli_epi32(x_sums, Type::kOffsetShift));
        const __m256i scales = scale_words<L>(blk, count);
        const __m256 factors = _mm256_mul_ps(halves_as_floats<false>(scales), x_scales);
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sums), factors, acc);
        if constexpr (Type::kMins) {
            static_assert(L::kM == L::kD + 2, "m must follow d");
            acc_min = _mm256_fmadd_ps(halves_as_floats<true>(scales),
                                      _mm256_mul_ps(x_scales, _mm256_cvtepi32_ps(x_sums)), acc_min);
        }
    }
    return _mm256_add_ps(acc, acc_min);
}

// One row's dot with one token, as eight float lanes still to be summed.
using RowKernel = __m256 (*)(const uint8_t* row, int64_t cols, const Token& x);

// Lane r of the result: the sum of the lanes of acc[r]. Rows as narrow as a small model's
// (768 weights: three super-blocks) spend a good part of their time summing their lanes; eight
// rows summed together take 9 operations instead of about 6 each.
PYRAMID_AVX512VNNI inline __m256 lane_sums(const __m256* acc)
{
    const __m256 first4 = _mm256_hadd_ps(_mm256_hadd_ps(acc[0], acc[1]), _mm256_hadd_ps(acc[2], acc[3]));
    const __m256 last4 = _mm256_hadd_ps(_mm256_hadd_ps(acc[4], acc[5]), _mm256_hadd_ps(acc[6], acc[7]));
    return _mm256_add_ps(_mm256_permute2f128_ps(first4, last4, 0x20), _mm256_permute2f128_ps(first4, last4, 0x31));
}

template <RowKernel Row>
PYRAMID_AVX512VNNI void token_rows_of(const WeightView& w, const Int8Activations& a, int token, float* y,
                                      int64_t row_begin, int64_t row_end)
{
    const Token x{a.q_row(token), a.scale_row(token), a.group_sum_row(token)};
    const size_t row_bytes = w.row_bytes();
    const auto* data = reinterpret_cast<const uint8_t*>(w.data);
    float* out = y + static_cast<int64_t>(token) * w.rows;
    // Lane i of lane_sums depends on acc[i] alone, so a row's result does not depend on which
    // rows share its group (how a range is split).
    for (int64_t r = row_begin; r < row_end; r += 8) {
        const int count = static_cast<int>(std::min<int64_t>(8, row_end - r));
        __m256 acc[8];
        for (int i = 0; i < 8; ++i)
            acc[i] = i < count ? Row(data + static_cast<size_t>(r + i) * row_bytes, w.cols, x) : _mm256_setzero_ps();
        _mm256_mask_storeu_ps(out + r, static_cast<__mmask8>((1u << count) - 1), lane_sums(acc));
    }
}

} // namespace

TokenRows token_rows(TensorType type)
{
    switch (type) {
    case TensorType::Q4_K: return token_rows_of<k4_row<false>>;
    case TensorType::Q5_K: return token_rows_of<k4_row<true>>;
    case TensorType::Q6_K: return token_rows_of<q6_k_row>;
    case TensorType::Q8_0: return token_rows_of<block32_row<Q8_0Block>>;
    case TensorType::Q4_0: return token_rows_of<block32_row<Q4_0Block<false>>>;
    case TensorType::Q5_0: return token_rows_of<block32_row<Q4_0Block<true>>>;
    case TensorType::Q4_1: return token_rows_of<block32_row<Q4_1Block<false>>>;
    case TensorType::Q5_1: return token_rows_of<block32_row<Q4_1Block<true>>>;
    default: return nullptr;
    }
}

} // namespace pyramid::cpu::int8_vnni

#endif
