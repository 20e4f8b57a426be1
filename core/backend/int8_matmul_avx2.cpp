// AVX2 integer dot products of quantized weights with int8 activations. Per block of 32: the
// weights are unpacked to bytes, multiplied with the activation bytes and summed in pairs
// (maddubs: unsigned x signed bytes into int16), summed again in int32 (madd, which also
// applies the 16-element scales of Q6_K), converted to float once and scaled by the block's
// weight scale times its activation scale. Signed weights use |w| and sign(x, w), since
// maddubs wants its first operand unsigned. Types with a per-block minimum (Q4_K, Q5_K)
// subtract min * (sum of the rounded activations) per super-block.
//
// Bounds: |q| <= 128 and |x| <= 127 keep each maddubs pair sum within int16 (<= 32512), and a
// block's int32 sum stays below 2^24, so its conversion to float is exact.
//
// Every function carries the AVX2 target attribute instead of the whole file being compiled
// for AVX2: nothing here may run (or be merged into code that runs) on a CPU without it.
#include "backend/int8_matmul.h"

#include <algorithm>
#include <cstring>

#include "util/float16.h"

namespace pyramid::cpu {

bool int8_matmul_supported(TensorType type)
{
    switch (type) {
    case TensorType::Q4_0:
    case TensorType::Q8_0:
    case TensorType::Q4_K:
    case TensorType::Q5_K:
    case TensorType::Q6_K: return true;
    default: return false;
    }
}

} // namespace pyramid::cpu

#if defined(__x86_64__) || defined(__i386__)
#include "backend/avx2_blocks.h"

namespace pyramid::cpu {
namespace {

using namespace avx2;

constexpr int kMaxTokens = 4;  // tokens per pass over a row: more would run out of registers

// The activations of the tokens one pass handles.
struct Tokens {
    const int8_t* q[kMaxTokens];
    const float* scale[kMaxTokens];
    const float* sum[kMaxTokens];
};

// Eight int32 partial sums of 32 byte products, weights unsigned (0..127).
PYRAMID_AVX2 inline __m256i dot_unsigned(__m256i w, const int8_t* x)
{
    return _mm256_madd_epi16(_mm256_maddubs_epi16(w, load32(x)), _mm256_set1_epi16(1));
}

// The same for signed weights, |w| given; `weights16` scales each int16 pair sum (1 or the
// 16-element scales of Q6_K).
PYRAMID_AVX2 inline __m256i dot_signed(__m256i w, __m256i w_abs, const int8_t* x, __m256i weights16)
{
    return _mm256_madd_epi16(_mm256_maddubs_epi16(w_abs, _mm256_sign_epi8(load32(x), w)), weights16);
}

PYRAMID_AVX2 inline void add_scaled(__m256& acc, __m256i sums, float scale)
{
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sums), _mm256_set1_ps(scale), acc);
}

PYRAMID_AVX2 inline float horizontal_sum(__m256 a, __m256 b)
{
    const __m256 s = _mm256_add_ps(a, b);
    __m128 v = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
    v = _mm_add_ps(v, _mm_movehl_ps(v, v));
    v = _mm_add_ss(v, _mm_movehdup_ps(v));
    return _mm_cvtss_f32(v);
}

// Two accumulators per token, for alternate blocks, so one block's multiply-add need not
// wait for the previous one.
template <int T>
struct Accumulators {
    __m256 even[T], odd[T];
};

template <int T>
PYRAMID_AVX2 inline void finish(Accumulators<T>& acc, float* out)
{
    for (int t = 0; t < T; ++t)
        out[t] = horizontal_sum(acc.even[t], acc.odd[t]);
}

template <int T>
PYRAMID_AVX2 inline void clear(Accumulators<T>& acc)
{
    for (int t = 0; t < T; ++t)
        acc.even[t] = acc.odd[t] = _mm256_setzero_ps();
}

// --- 32-element block types: block b of the row meets activation block b ----------------

// Q8_0 block: f16 d | i8 q[32]
template <int T>
PYRAMID_AVX2 inline void q8_0_block(const uint8_t* blk, int64_t b, const Tokens& x, __m256* acc)
{
    const float d = half_at(blk);
    const __m256i w = load32(blk + 2);
    const __m256i w_abs = _mm256_abs_epi8(w);
    for (int t = 0; t < T; ++t)
        add_scaled(acc[t], dot_signed(w, w_abs, x.q[t] + 32 * b, _mm256_set1_epi16(1)), d * x.scale[t][b]);
}

// Q4_0 block: f16 d | u8 qs[16] (low nibbles: elements 0..15, high: 16..31), value q - 8
template <int T>
PYRAMID_AVX2 inline void q4_0_block(const uint8_t* blk, int64_t b, const Tokens& x, __m256* acc)
{
    const float d = half_at(blk);
    const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 2));
    const __m128i low = _mm_and_si128(packed, _mm_set1_epi8(0x0f));
    const __m128i high = _mm_and_si128(_mm_srli_epi16(packed, 4), _mm_set1_epi8(0x0f));
    const __m256i w = _mm256_sub_epi8(_mm256_set_m128i(high, low), bytes(8));
    const __m256i w_abs = _mm256_abs_epi8(w);
    for (int t = 0; t < T; ++t)
        add_scaled(acc[t], dot_signed(w, w_abs, x.q[t] + 32 * b, _mm256_set1_epi16(1)), d * x.scale[t][b]);
}

template <int T, size_t BlockBytes, void (*Block)(const uint8_t*, int64_t, const Tokens&, __m256*)>
PYRAMID_AVX2 void simple_row(const uint8_t* row, int64_t cols, const Tokens& x, float* out)
{
    Accumulators<T> acc;
    clear(acc);
    const int64_t blocks = cols / 32;
    int64_t b = 0;
    for (; b + 2 <= blocks; b += 2) {
        Block(row + b * BlockBytes, b, x, acc.even);
        Block(row + (b + 1) * BlockBytes, b + 1, x, acc.odd);
    }
    if (b < blocks)
        Block(row + b * BlockBytes, b, x, acc.even);
    finish(acc, out);
}

// --- K-quants: super-block s of 256 meets activation blocks 8s .. 8s+7 ------------------

// Scale and min number j (0..7) of Q4_K/Q5_K: 6 bits each, packed in 12 bytes.
inline void k4_scale_min(int j, const uint8_t* q, uint8_t& sc, uint8_t& m)
{
    if (j < 4) {
        sc = q[j] & 63;
        m = q[j + 4] & 63;
    } else {
        sc = static_cast<uint8_t>((q[j + 4] & 0x0f) | ((q[j - 4] >> 6) << 4));
        m = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
}

// Q4_K (with_fifth_bit false) and Q5_K: w = (d * sc_j) * q - dmin * m_j for the 32 elements
// of group j, q unsigned (4 or 5 bits).
template <int T, bool with_fifth_bit>
PYRAMID_AVX2 void k4_row(const uint8_t* row, int64_t cols, const Tokens& x, float* out)
{
    constexpr size_t kBytes = with_fifth_bit ? 176 : 144;
    Accumulators<T> acc;
    clear(acc);
    for (int64_t s = 0; s < cols / 256; ++s) {
        const uint8_t* blk = row + s * kBytes;
        const float d = half_at(blk);
        const float dmin = half_at(blk + 2);
        float scale[8], mins[8];
        for (int j = 0; j < 8; ++j) {
            uint8_t sc, m;
            k4_scale_min(j, blk + 4, sc, m);
            scale[j] = d * sc;
            mins[j] = dmin * m;
        }
        const uint8_t* qs = blk + (with_fifth_bit ? 48 : 16);
        const __m256i qh = with_fifth_bit ? load32(blk + 16) : _mm256_setzero_si256();
        for (int j = 0; j < 4; ++j) {
            const __m256i q = load32(qs + 32 * j);
            __m256i low = _mm256_and_si256(q, bytes(0x0f));
            __m256i high = _mm256_and_si256(_mm256_srli_epi16(q, 4), bytes(0x0f));
            if constexpr (with_fifth_bit) {
                const __m256i u1 = bytes(1 << (2 * j)), u2 = bytes(2 << (2 * j));
                low = _mm256_or_si256(low, _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(qh, u1), u1), bytes(16)));
                high = _mm256_or_si256(high, _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(qh, u2), u2), bytes(16)));
            }
            const int64_t b = 8 * s + 2 * j;  // activation block of the low group
            for (int t = 0; t < T; ++t) {
                add_scaled(acc.even[t], dot_unsigned(low, x.q[t] + 32 * b), scale[2 * j] * x.scale[t][b]);
                add_scaled(acc.odd[t], dot_unsigned(high, x.q[t] + 32 * b + 32), scale[2 * j + 1] * x.scale[t][b + 1]);
            }
        }
        const __m256 min_vector = _mm256_loadu_ps(mins);
        for (int t = 0; t < T; ++t)
            acc.even[t] = _mm256_fnmadd_ps(min_vector, _mm256_loadu_ps(x.sum[t] + 8 * s), acc.even[t]);
    }
    finish(acc, out);
}

// Q6_K: w = d * sc * (q - 32), q 6 bits, one int8 scale per 16 elements (unpack_q6_k_half):
// output o of half h is element 128h + o, so each of
// the four 32-byte q vectors of a half is one activation block with two scales.
template <int T>
PYRAMID_AVX2 void q6_k_row(const uint8_t* row, int64_t cols, const Tokens& x, float* out)
{
    Accumulators<T> acc;
    clear(acc);
    for (int64_t s = 0; s < cols / 256; ++s) {
        const uint8_t* blk = row + s * 210;
        const auto* sc = reinterpret_cast<const int8_t*>(blk + 192);
        const float d = half_at(blk + 208);
        for (int half = 0; half < 2; ++half) {
            __m256i q[4];
            unpack_q6_k_half(blk, half, q);
            for (int k = 0; k < 4; ++k) {
                const __m256i w = _mm256_sub_epi8(q[k], bytes(32));
                const __m256i w_abs = _mm256_abs_epi8(w);
                const int8_t* g = sc + 8 * half + 2 * k;  // scales of the block's two halves
                const __m256i scales = _mm256_set_m128i(_mm_set1_epi16(g[1]), _mm_set1_epi16(g[0]));
                const int64_t b = 8 * s + 4 * half + k;
                for (int t = 0; t < T; ++t)
                    add_scaled(k % 2 ? acc.odd[t] : acc.even[t], dot_signed(w, w_abs, x.q[t] + 32 * b, scales),
                               d * x.scale[t][b]);
            }
        }
    }
    finish(acc, out);
}

using RowDot = void (*)(const uint8_t* row, int64_t cols, const Tokens& x, float* out);

// The kernel of `type` for 1..4 tokens at a time.
struct RowKernels {
    RowDot for_tokens[kMaxTokens];
};

RowKernels kernels_for(TensorType type)
{
    switch (type) {
    case TensorType::Q8_0:
        return {{simple_row<1, 34, q8_0_block<1>>, simple_row<2, 34, q8_0_block<2>>,
                 simple_row<3, 34, q8_0_block<3>>, simple_row<4, 34, q8_0_block<4>>}};
    case TensorType::Q4_0:
        return {{simple_row<1, 18, q4_0_block<1>>, simple_row<2, 18, q4_0_block<2>>,
                 simple_row<3, 18, q4_0_block<3>>, simple_row<4, 18, q4_0_block<4>>}};
    case TensorType::Q4_K: return {{k4_row<1, false>, k4_row<2, false>, k4_row<3, false>, k4_row<4, false>}};
    case TensorType::Q5_K: return {{k4_row<1, true>, k4_row<2, true>, k4_row<3, true>, k4_row<4, true>}};
    case TensorType::Q6_K: return {{q6_k_row<1>, q6_k_row<2>, q6_k_row<3>, q6_k_row<4>}};
    default: return {};
    }
}

} // namespace

void matmul_rows_int8(const WeightView& w, const Int8Activations& a, int token_begin, int token_end, float* y,
                      int64_t row_begin, int64_t row_end)
{
    const RowKernels kernels = kernels_for(w.type);
    const size_t row_bytes = w.row_bytes();
    float out[kMaxTokens];
    for (int64_t r = row_begin; r < row_end; ++r) {
        const auto* row = reinterpret_cast<const uint8_t*>(w.data) + static_cast<size_t>(r) * row_bytes;
        for (int t0 = token_begin; t0 < token_end; t0 += kMaxTokens) {
            const int count = std::min(kMaxTokens, token_end - t0);
            Tokens x;
            for (int t = 0; t < count; ++t) {
                x.q[t] = a.q_row(t0 + t);
                x.scale[t] = a.scale_row(t0 + t);
                x.sum[t] = a.sum_row(t0 + t);
            }
            kernels.for_tokens[count - 1](row, w.cols, x, out);
            for (int t = 0; t < count; ++t)
                y[static_cast<int64_t>(t0 + t) * w.rows + r] = out[t];
        }
    }
}

} // namespace pyramid::cpu

#else // not x86: no AVX2, so QuantizedDot::Int8 is never chosen

#include "util/error.h"

namespace pyramid::cpu {
void matmul_rows_int8(const WeightView&, const Int8Activations&, int, int, float*, int64_t, int64_t)
{
    throw Error("the int8 matmul kernels need an x86-64 CPU with AVX2");
}
} // namespace pyramid::cpu

#endif
