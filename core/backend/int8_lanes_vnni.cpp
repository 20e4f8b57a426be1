// The AVX512-VNNI lane kernels (int8_lanes_vnni.h): per type, how a unit of a weight row (one
// block of 32, or a K-quant super-block of eight) becomes unsigned bytes and float scales;
// then one loop, shared by the types, dots each block with 16 tokens' activation lanes.
#if defined(__x86_64__) || defined(__i386__)
#include "backend/int8_lanes_vnni.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "backend/int8_rows_avx2.h"

namespace pyramid::cpu::int8_vnni {
namespace {

using namespace avx2;
using namespace block_layout;
using int8_avx2::k4_scale_min_bytes;
using int8_avx2::plane;
using int8_avx2::q3_k_scales;

// One unit of a weight row decoded: per block of 32 weights, the bytes u = q + offset (all
// unsigned) and the float factors of its integer dot.
template <int Blocks>
struct Unit {
    alignas(32) uint8_t u[Blocks][32];
    float scale[Blocks];   // weight scale of the block (d, for the types with half_scale)
    int32_t half_scale[Blocks][2];  // Q2_K, Q3_K, Q6_K: the integer scales of the block's halves
    float min[Blocks];     // Q4_1, Q5_1, Q4_K, Q5_K: what the block's weights subtract
    float half_min[Blocks][2];  // Q2_K: what each half's weights subtract
};

// The vector operations of the lane kernels on 16 lanes (zmm) and on 8 (ymm): half the lanes
// cost half the time on Zen 4, which runs a 512-bit operation as two 256-bit halves, so fewer
// tokens take the narrow form.
struct Lanes16 {
    static constexpr int kWidth = 16;
    using F = __m512;
    using I = __m512i;
    static PYRAMID_AVX512VNNI F load(const float* p) { return _mm512_loadu_ps(p); }
    static PYRAMID_AVX512VNNI I load(const int32_t* p) { return _mm512_loadu_si512(p); }
    static PYRAMID_AVX512VNNI void store(float* p, F v) { _mm512_storeu_ps(p, v); }
    static PYRAMID_AVX512VNNI F zero_f() { return _mm512_setzero_ps(); }
    static PYRAMID_AVX512VNNI I zero_i() { return _mm512_setzero_si512(); }
    static PYRAMID_AVX512VNNI F set1(float v) { return _mm512_set1_ps(v); }
    static PYRAMID_AVX512VNNI I set1(int32_t v) { return _mm512_set1_epi32(v); }
    static PYRAMID_AVX512VNNI I dpbusd(I acc, I u, I x) { return _mm512_dpbusd_epi32(acc, u, x); }
    static PYRAMID_AVX512VNNI I add(I a, I b) { return _mm512_add_epi32(a, b); }
    static PYRAMID_AVX512VNNI I sub(I a, I b) { return _mm512_sub_epi32(a, b); }
    static PYRAMID_AVX512VNNI I mullo(I a, I b) { return _mm512_mullo_epi32(a, b); }
    // GCC 12 warns that _mm512_slli_epi32 and _mm512_cvtepi32_ps read an uninitialised vector
    // (the _mm512_undefined_* they pass as the unmasked result); their zero-masked forms with
    // every lane kept compute the same without it.
    static PYRAMID_AVX512VNNI I shift_left(I v, unsigned bits) { return _mm512_maskz_slli_epi32(0xffff, v, bits); }
    static PYRAMID_AVX512VNNI F to_floats(I v) { return _mm512_maskz_cvtepi32_ps(0xffff, v); }
    static PYRAMID_AVX512VNNI F mul(F a, F b) { return _mm512_mul_ps(a, b); }
    static PYRAMID_AVX512VNNI F fmadd(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }
    static PYRAMID_AVX512VNNI F fnmadd(F a, F b, F c) { return _mm512_fnmadd_ps(a, b, c); }
};

struct Lanes8 {
    static constexpr int kWidth = 8;
    using F = __m256;
    using I = __m256i;
    static PYRAMID_AVX512VNNI F load(const float* p) { return _mm256_loadu_ps(p); }
    static PYRAMID_AVX512VNNI I load(const int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const I*>(p)); }
    static PYRAMID_AVX512VNNI void store(float* p, F v) { _mm256_storeu_ps(p, v); }
    static PYRAMID_AVX512VNNI F zero_f() { return _mm256_setzero_ps(); }
    static PYRAMID_AVX512VNNI I zero_i() { return _mm256_setzero_si256(); }
    static PYRAMID_AVX512VNNI F set1(float v) { return _mm256_set1_ps(v); }
    static PYRAMID_AVX512VNNI I set1(int32_t v) { return _mm256_set1_epi32(v); }
    static PYRAMID_AVX512VNNI I dpbusd(I acc, I u, I x) { return _mm256_dpbusd_epi32(acc, u, x); }
    static PYRAMID_AVX512VNNI I add(I a, I b) { return _mm256_add_epi32(a, b); }
    static PYRAMID_AVX512VNNI I sub(I a, I b) { return _mm256_sub_epi32(a, b); }
    static PYRAMID_AVX512VNNI I mullo(I a, I b) { return _mm256_mullo_epi32(a, b); }
    static PYRAMID_AVX512VNNI I shift_left(I v, unsigned bits) { return _mm256_slli_epi32(v, static_cast<int>(bits)); }
    static PYRAMID_AVX512VNNI F to_floats(I v) { return _mm256_cvtepi32_ps(v); }
    static PYRAMID_AVX512VNNI F mul(F a, F b) { return _mm256_mul_ps(a, b); }
    static PYRAMID_AVX512VNNI F fmadd(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }
    static PYRAMID_AVX512VNNI F fnmadd(F a, F b, F c) { return _mm256_fnmadd_ps(a, b, c); }
};

PYRAMID_AVX2 inline void store32(uint8_t* to, __m256i v) { _mm256_store_si256(reinterpret_cast<__m256i*>(to), v); }

// Q8_0: w = d * (u - 128), u = q + 128.
struct Q8_0Unit {
    static constexpr int kBlocks = 1;
    static constexpr size_t kBytes = Q8_0::kBytes;
    static constexpr int kOffsetShift = 7;  // the offset is 1 << kOffsetShift (0: none)
    static constexpr bool kHalves = false, kMins = false, kHalfMins = false;
    PYRAMID_AVX2 static void decode(const uint8_t* blk, Unit<1>& out)
    {
        store32(out.u[0], _mm256_xor_si256(load32(blk + Q8_0::kQs), bytes(0x80)));
        out.scale[0] = half_at(blk + Q8_0::kD);
    }
};

// Q4_0: w = d * (u - 8); Q5_0: w = d * (u - 16), u with its fifth bit.
template <bool with_fifth_bit>
struct Q4_0Unit {
    using L = std::conditional_t<with_fifth_bit, Q5_0, Q4_0>;
    static constexpr int kBlocks = 1;
    static constexpr size_t kBytes = L::kBytes;
    static constexpr int kOffsetShift = with_fifth_bit ? 4 : 3;
    static constexpr bool kHalves = false, kMins = false, kHalfMins = false;
    PYRAMID_AVX2 static void decode(const uint8_t* blk, Unit<1>& out)
    {
        store32(out.u[0], nibble_block_values<L>(blk));
        out.scale[0] = half_at(blk + L::kD);
    }
};

// Q4_1: w = d * u + m; Q5_1 the same with u's fifth bit. The kernels subtract min = -m.
template <bool with_fifth_bit>
struct Q4_1Unit {
    using L = std::conditional_t<with_fifth_bit, Q5_1, Q4_1>;
    static constexpr int kBlocks = 1;
    static constexpr size_t kBytes = L::kBytes;
    static constexpr int kOffsetShift = 0;
    static constexpr bool kHalves = false, kMins = true, kHalfMins = false;
    PYRAMID_AVX2 static void decode(const uint8_t* blk, Unit<1>& out)
    {
        store32(out.u[0], nibble_block_values<L>(blk));
        out.scale[0] = half_at(blk + L::kD);
        out.min[0] = -half_at(blk + L::kM);
    }
};

// Eight bytes as eight floats.
PYRAMID_AVX2 inline __m256 as_floats(uint64_t bytes8)
{
    return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<int64_t>(bytes8))));
}

// Q4_K: w = (d * sc_j) * u - dmin * m_j for block j of the super-block, u 4 bits; Q5_K the
// same with u's fifth bit.
template <bool with_fifth_bit>
struct Q4_KUnit {
    using L = std::conditional_t<with_fifth_bit, Q5_K, Q4_K>;
    static constexpr int kBlocks = 8;
    static constexpr size_t kBytes = L::kBytes;
    static constexpr int kOffsetShift = 0;
    static constexpr bool kHalves = false, kMins = true, kHalfMins = false;
    PYRAMID_AVX2 static void decode(const uint8_t* blk, Unit<8>& out)
    {
        uint64_t scales, mins;
        k4_scale_min_bytes(blk + L::kScales, scales, mins);
        const __m256 d = _mm256_set1_ps(half_at(blk + L::kD)), dmin = _mm256_set1_ps(half_at(blk + L::kDmin));
        _mm256_storeu_ps(out.scale, _mm256_mul_ps(d, as_floats(scales)));
        _mm256_storeu_ps(out.min, _mm256_mul_ps(dmin, as_floats(mins)));
        __m256i qh = with_fifth_bit ? load32(blk + Q5_K::kQh) : _mm256_setzero_si256();
        for (int j = 0; j < 4; ++j) {
            __m256i low, high;
            int8_avx2::k4_group_pair<with_fifth_bit>(load32(blk + L::kQs + 32 * j), qh, low, high);
            if constexpr (with_fifth_bit)
                qh = _mm256_srli_epi16(qh, 2);
            store32(out.u[2 * j], low);
            store32(out.u[2 * j + 1], high);
        }
    }
};

// Q6_K: w = d * sc * (u - 32), one int8 scale sc per 16 weights, u 6 bits.
struct Q6_KUnit {
    static constexpr int kBlocks = 8;
    static constexpr size_t kBytes = Q6_K::kBytes;
    static constexpr int kOffsetShift = 5;
    static constexpr bool kHalves = true, kMins = false, kHalfMins = false;
    PYRAMID_AVX2 static void decode(const uint8_t* blk, Unit<8>& out)
    {
        const auto* sc = reinterpret_cast<const int8_t*>(blk + Q6_K::kScales);
        const float d = half_at(blk + Q6_K::kD);
        for (int j = 0; j < 8; ++j) {
            out.scale[j] = d;
            out.half_scale[j][0] = sc[2 * j];
            out.half_scale[j][1] = sc[2 * j + 1];
        }
        for (int half = 0; half < 2; ++half) {
            __m256i q[4];
            unpack_q6_k_half(blk, half, q);
            for (int k = 0; k < 4; ++k)
                store32(out.u[4 * half + k], q[k]);
        }
    }
};

// Q3_K: w = d * sc * (u - 4), one signed 6-bit scale sc per 16 weights, u = q + 4 * (the
// weight's hmask bit), 0..7; Q2_K: w = (d * sc) * u - dmin * m, a 4-bit scale sc and min m
// per 16 weights, u 2 bits. Block 4h + p of the super-block is plane p of quant half h
// (int8_rows_avx2.h).
template <bool q3>
struct Q2_KUnit {
    using L = std::conditional_t<q3, Q3_K, Q2_K>;
    static constexpr int kBlocks = 8;
    static constexpr size_t kBytes = L::kBytes;
    static constexpr int kOffsetShift = q3 ? 2 : 0;
    static constexpr bool kHalves = true, kMins = false, kHalfMins = !q3;
    PYRAMID_AVX2 static void decode(const uint8_t* blk, Unit<8>& out)
    {
        alignas(32) int16_t scales[16];
        const float d = half_at(blk + L::kD);
        if constexpr (q3) {
            _mm256_store_si256(reinterpret_cast<__m256i*>(scales), q3_k_scales(blk + Q3_K::kScales));
        } else {
            const float dmin = half_at(blk + Q2_K::kDmin);
            for (int g = 0; g < 16; ++g) {
                scales[g] = blk[Q2_K::kScales + g] & 0x0f;
                out.half_min[g / 2][g % 2] = dmin * static_cast<float>(blk[Q2_K::kScales + g] >> 4);
            }
        }
        for (int j = 0; j < 8; ++j) {
            out.scale[j] = d;
            out.half_scale[j][0] = scales[2 * j];
            out.half_scale[j][1] = scales[2 * j + 1];
        }
        const __m256i hmask = q3 ? load32(blk + Q3_K::kHmask) : _mm256_setzero_si256();
        for (int h = 0; h < 2; ++h) {
            const __m256i q = load32(blk + L::kQs + 32 * h);
            for (int p = 0; p < 4; ++p) {
                const int b = 4 * h + p;
                __m256i u = plane(q, p);
                if constexpr (q3)
                    u = _mm256_or_si256(u, where_bits(hmask, bytes(1 << b), 4));
                store32(out.u[b], u);
            }
        }
    }
};

// The rows r0 .. r0 + R - 1 and where they are decoded: unit s of row r0 + r at
// units[r * row_stride + s * unit_stride]. A single lane group reads each unit once, right
// after decoding it, so one unit per row is kept (unit_stride 0), which stays in L1; several
// groups keep whole rows (row_stride unit_count, unit_stride 1).
template <typename Type>
struct DecodedRows {
    const uint8_t* r0;
    size_t row_bytes;
    int64_t unit_count;
    Unit<Type::kBlocks>* units;
    int64_t row_stride, unit_stride;

    Unit<Type::kBlocks>& at(int r, int64_t s) const { return units[r * row_stride + s * unit_stride]; }
};

// The R rows' dots with lanes first .. first + V::kWidth - 1 of lane group g: out[r] = those
// tokens' dots with row r0 + r. With Decode, each unit is decoded into rows.units just before
// its first use (the loads of the weights then overlap the arithmetic); else read from there.
template <typename Type, int R, typename V, bool Decode>
PYRAMID_AVX512VNNI void dot_rows(const DecodedRows<Type>& rows, const TokenLanes& lanes, int g, int first,
                                 typename V::F* out)
{
    using F = typename V::F;
    using I = typename V::I;
    constexpr int kBlocks = Type::kBlocks;
    const int64_t unit_count = rows.unit_count;
    F acc[R];
    for (int r = 0; r < R; ++r)
        acc[r] = V::zero_f();
    for (int64_t s = 0; s < unit_count; ++s) {
        if constexpr (Decode)
            for (int r = 0; r < R; ++r) {
                const uint8_t* blk = rows.r0 + r * rows.row_bytes + s * Type::kBytes;
                prefetch_ahead(blk, Type::kBytes);
                Type::decode(blk, rows.at(r, s));
            }
        for (int j = 0; j < kBlocks; ++j) {
            const int64_t b = s * kBlocks + j;
            const int32_t* xq = lanes.q_at(g, b) + first;
            const F xs = V::load(lanes.scale_at(g, b) + first);
            // Where the integer sums start: -offset * the tokens' activation sums.
            I start0 = V::zero_i(), start1 = start0;
            F scaled_sums = V::zero_f();  // kMins: activation scale * block sum
            F half_sums0 = V::zero_f(), half_sums1 = half_sums0;  // Q2_K: the same per half
            if constexpr (Type::kOffsetShift != 0 || Type::kMins || Type::kHalfMins) {
                const I sum0 = V::load(lanes.sum_at(g, b) + first);
                const I sum1 = V::load(lanes.sum_at(g, b) + kLaneTokens + first);
                if constexpr (Type::kHalves && Type::kOffsetShift != 0) {
                    start0 = V::sub(start0, V::shift_left(sum0, Type::kOffsetShift));
                    start1 = V::sub(start1, V::shift_left(sum1, Type::kOffsetShift));
                } else if constexpr (Type::kOffsetShift != 0) {
                    start0 = V::sub(start0, V::shift_left(V::add(sum0, sum1), Type::kOffsetShift));
                }
                if constexpr (Type::kMins)
                    scaled_sums = V::mul(xs, V::to_floats(V::add(sum0, sum1)));
                if constexpr (Type::kHalfMins) {
                    half_sums0 = V::mul(xs, V::to_floats(sum0));
                    half_sums1 = V::mul(xs, V::to_floats(sum1));
                }
            }
            I dot0[R], dot1[R];
            for (int r = 0; r < R; ++r) {
                dot0[r] = start0;
                dot1[r] = start1;
            }
            for (int k = 0; k < 8; ++k) {
                const I x = V::load(xq + k * kLaneTokens);
                for (int r = 0; r < R; ++r) {
                    const I w = V::set1(static_cast<int32_t>(u32_at(rows.at(r, s).u[j] + 4 * k)));
                    if (Type::kHalves && k >= 4)
                        dot1[r] = V::dpbusd(dot1[r], w, x);
                    else
                        dot0[r] = V::dpbusd(dot0[r], w, x);
                }
            }
            for (int r = 0; r < R; ++r) {
                const Unit<kBlocks>& unit = rows.at(r, s);
                I dot = dot0[r];
                if constexpr (Type::kHalves)
                    dot = V::add(V::mullo(dot0[r], V::set1(unit.half_scale[j][0])),
                                 V::mullo(dot1[r], V::set1(unit.half_scale[j][1])));
                acc[r] = V::fmadd(V::to_floats(dot), V::mul(V::set1(unit.scale[j]), xs), acc[r]);
                if constexpr (Type::kMins)
                    acc[r] = V::fnmadd(V::set1(unit.min[j]), scaled_sums, acc[r]);
                if constexpr (Type::kHalfMins) {
                    acc[r] = V::fnmadd(V::set1(unit.half_min[j][0]), half_sums0, acc[r]);
                    acc[r] = V::fnmadd(V::set1(unit.half_min[j][1]), half_sums1, acc[r]);
                }
            }
        }
    }
    for (int r = 0; r < R; ++r)
        out[r] = acc[r];
}

// Writes rows r0 .. r0 + R - 1 of the tokens [token_begin, token_end) of group g, which lie
// in lanes first .. first + V::kWidth - 1.
template <typename Type, int R, typename V, bool Decode>
PYRAMID_AVX512VNNI void rows_to_y(const DecodedRows<Type>& rows, const WeightView& w, const TokenLanes& lanes, int g,
                                  int first, int token_begin, int token_end, float* y, int64_t r0)
{
    typename V::F dots[R];
    dot_rows<Type, R, V, Decode>(rows, lanes, g, first, dots);
    for (int r = 0; r < R; ++r) {
        float lane[V::kWidth];
        V::store(lane, dots[r]);
        for (int t = token_begin; t < token_end; ++t)
            y[static_cast<int64_t>(t) * w.rows + r0 + r] = lane[t - g * kLaneTokens - first];
    }
}

// Rows r0 .. r0 + R - 1 against every lane group of the tokens: with `decode`, decoded during
// the first group's pass and read back decoded by the others; else all read back.
template <typename Type, int R>
void row_block(const WeightView& w, const TokenLanes& lanes, int token_begin, int token_end, float* y, int64_t r0,
               Unit<Type::kBlocks>* units, bool one_group, bool decode)
{
    const size_t row_bytes = w.row_bytes();
    const int64_t unit_count = lanes.blocks / Type::kBlocks;
    const DecodedRows<Type> rows{reinterpret_cast<const uint8_t*>(w.data) + static_cast<size_t>(r0) * row_bytes,
                                 row_bytes,
                                 unit_count,
                                 units,
                                 one_group ? 1 : unit_count,
                                 one_group ? 0 : 1};
    constexpr int kHalf = kLaneTokens / 2;
    for (int t0 = token_begin; t0 < token_end;) {
        const int g = t0 / kLaneTokens;
        const int t1 = std::min(token_end, (g + 1) * kLaneTokens);
        const int lane_begin = t0 - g * kLaneTokens, lane_end = t1 - g * kLaneTokens;
        const bool narrow = lane_end <= kHalf || lane_begin >= kHalf;
        const int first = lane_begin >= kHalf ? kHalf : 0;
        if (decode && t0 == token_begin) {
            if (narrow)
                rows_to_y<Type, R, Lanes8, true>(rows, w, lanes, g, first, t0, t1, y, r0);
            else
                rows_to_y<Type, R, Lanes16, true>(rows, w, lanes, g, 0, t0, t1, y, r0);
        } else if (narrow) {
            rows_to_y<Type, R, Lanes8, false>(rows, w, lanes, g, first, t0, t1, y, r0);
        } else {
            rows_to_y<Type, R, Lanes16, false>(rows, w, lanes, g, 0, t0, t1, y, r0);
        }
        t0 = t1;
    }
}

// Lane groups whose activations the rows of a call pass over before the next groups: 256
// tokens, 200-700 KiB of lanes for rows of 768-2048 values, so they stay in the L2 cache
// while every row of the call passes. Without tiles a 2048-token prompt's lanes (up to 6 MiB)
// streamed from memory once per 4 rows, and the kernels ran at half their 128-token speed.
constexpr int kTileGroups = 16;

template <typename Type>
void lane_rows_of(const WeightView& w, const Int8Activations& a, int token_begin, int token_end, float* y,
                  int64_t row_begin, int64_t row_end)
{
    constexpr int R = 4;  // rows sharing each activation load
    const bool one_group = token_begin / kLaneTokens == (token_end - 1) / kLaneTokens;
    // Several groups keep every row of the call decoded, for all their token tiles.
    const int64_t unit_count = a.lanes.blocks / Type::kBlocks;
    const int64_t units = one_group ? R : (row_end - row_begin) * unit_count;
    // The thread's decoded units, grown to the largest row block it has seen: allocating them
    // for every 16-row chunk of every product cost a malloc (up to ~90 KiB) each time.
    thread_local std::vector<Unit<Type::kBlocks>> decoded;
    if (decoded.size() < static_cast<size_t>(units))
        decoded.resize(static_cast<size_t>(units));
    for (int tile_begin = token_begin, tile_end; tile_begin < token_end; tile_begin = tile_end) {
        tile_end = std::min(token_end, (tile_begin / kLaneTokens + kTileGroups) * kLaneTokens);
        const bool decode = tile_begin == token_begin;
        int64_t r = row_begin;
        const auto units_of = [&](int64_t row) { return decoded.data() + (one_group ? 0 : (row - row_begin) * unit_count); };
        for (; r + R <= row_end; r += R)
            row_block<Type, R>(w, a.lanes, tile_begin, tile_end, y, r, units_of(r), one_group, decode);
        for (; r < row_end; ++r)
            row_block<Type, 1>(w, a.lanes, tile_begin, tile_end, y, r, units_of(r), one_group, decode);
    }
}

} // namespace

LaneRows lane_rows(TensorType type)
{
    switch (type) {
    case TensorType::Q8_0: return lane_rows_of<Q8_0Unit>;
    case TensorType::Q4_0: return lane_rows_of<Q4_0Unit<false>>;
    case TensorType::Q5_0: return lane_rows_of<Q4_0Unit<true>>;
    case TensorType::Q4_1: return lane_rows_of<Q4_1Unit<false>>;
    case TensorType::Q5_1: return lane_rows_of<Q4_1Unit<true>>;
    case TensorType::Q4_K: return lane_rows_of<Q4_KUnit<false>>;
    case TensorType::Q5_K: return lane_rows_of<Q4_KUnit<true>>;
    case TensorType::Q2_K: return lane_rows_of<Q2_KUnit<false>>;
    case TensorType::Q3_K: return lane_rows_of<Q2_KUnit<true>>;
    case TensorType::Q6_K: return lane_rows_of<Q6_KUnit>;
    default: return nullptr;
    }
}

} // namespace pyramid::cpu::int8_vnni

#endif
