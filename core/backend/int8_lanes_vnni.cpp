// The AVX512-VNNI lane kernels (int8_lanes_vnni.h): per type, how a unit of a weight row (one
// block of 32, or a K-quant super-block of eight) becomes unsigned bytes and float scales;
// then one loop, shared by the types, dots each block with 16 tokens' activation lanes.
#if defined(__x86_64__) || defined(__i386__)
#include "backend/int8_lanes_vnni.h"

#include <algorithm>

#include "backend/int8_rows_avx2.h"

#define PYRAMID_AVX512VNNI __attribute__((target("avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")))

namespace pyramid::cpu::int8_vnni {
namespace {

using namespace avx2;
using namespace block_layout;
using int8_avx2::k4_scale_min_bytes;

// One unit of a weight row decoded: per block of 32 weights, the bytes u = q + offset (all
// unsigned) and the float factors of its integer dot.
template <int Blocks>
struct Unit {
    alignas(32) uint8_t u[Blocks][32];
    float scale[Blocks];   // weight scale of the block (of its first half, for Q6_K)
    int32_t half_scale[Blocks][2];  // Q6_K: the integer scales of the block's two halves
    float min[Blocks];     // Q4_K: dmin * m of the block
};

// GCC 12 warns that _mm512_slli_epi32 and _mm512_cvtepi32_ps read an uninitialised vector (the
// _mm512_undefined_* they pass as the unmasked result); their zero-masked forms with every
// lane kept compute the same without it.
PYRAMID_AVX512VNNI inline __m512 to_floats(__m512i v) { return _mm512_maskz_cvtepi32_ps(0xffff, v); }
PYRAMID_AVX512VNNI inline __m512i shifted_left(__m512i v, unsigned bits)
{
    return _mm512_maskz_slli_epi32(0xffff, v, bits);
}

PYRAMID_AVX2 inline void store32(uint8_t* to, __m256i v) { _mm256_store_si256(reinterpret_cast<__m256i*>(to), v); }

// Q8_0: w = d * (u - 128), u = q + 128.
struct Q8_0Unit {
    static constexpr int kBlocks = 1;
    static constexpr size_t kBytes = Q8_0::kBytes;
    static constexpr int kOffsetShift = 7;  // the offset is 1 << kOffsetShift (0: none)
    static constexpr bool kHalves = false, kMins = false;
    PYRAMID_AVX2 static void decode(const uint8_t* blk, Unit<1>& out)
    {
        store32(out.u[0], _mm256_xor_si256(load32(blk + Q8_0::kQs), bytes(0x80)));
        out.scale[0] = half_at(blk + Q8_0::kD);
    }
};

// Q4_0: w = d * (u - 8).
struct Q4_0Unit {
    static constexpr int kBlocks = 1;
    static constexpr size_t kBytes = Q4_0::kBytes;
    static constexpr int kOffsetShift = 3;
    static constexpr bool kHalves = false, kMins = false;
    PYRAMID_AVX2 static void decode(const uint8_t* blk, Unit<1>& out)
    {
        store32(out.u[0], nibbles32(blk + Q4_0::kQs));
        out.scale[0] = half_at(blk + Q4_0::kD);
    }
};

// Eight bytes as eight floats.
PYRAMID_AVX2 inline __m256 as_floats(uint64_t bytes8)
{
    return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<int64_t>(bytes8))));
}

// Q4_K: w = (d * sc_j) * u - dmin * m_j for block j of the super-block, u 4 bits.
struct Q4_KUnit {
    static constexpr int kBlocks = 8;
    static constexpr size_t kBytes = Q4_K::kBytes;
    static constexpr int kOffsetShift = 0;
    static constexpr bool kHalves = false, kMins = true;
    PYRAMID_AVX2 static void decode(const uint8_t* blk, Unit<8>& out)
    {
        uint64_t scales, mins;
        k4_scale_min_bytes(blk + Q4_K::kScales, scales, mins);
        const __m256 d = _mm256_set1_ps(half_at(blk + Q4_K::kD)), dmin = _mm256_set1_ps(half_at(blk + Q4_K::kDmin));
        _mm256_storeu_ps(out.scale, _mm256_mul_ps(d, as_floats(scales)));
        _mm256_storeu_ps(out.min, _mm256_mul_ps(dmin, as_floats(mins)));
        for (int j = 0; j < 4; ++j) {
            const __m256i q = load32(blk + Q4_K::kQs + 32 * j);
            store32(out.u[2 * j], _mm256_and_si256(q, bytes(0x0f)));
            store32(out.u[2 * j + 1], _mm256_and_si256(_mm256_srli_epi16(q, 4), bytes(0x0f)));
        }
    }
};

// Q6_K: w = d * sc * (u - 32), one int8 scale sc per 16 weights, u 6 bits.
struct Q6_KUnit {
    static constexpr int kBlocks = 8;
    static constexpr size_t kBytes = Q6_K::kBytes;
    static constexpr int kOffsetShift = 5;
    static constexpr bool kHalves = true, kMins = false;
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

// Rows r0 .. r0 + R - 1 against lane group g: out[r] = the 16 tokens' dots with row r.
template <typename Type, int R>
PYRAMID_AVX512VNNI void dot_rows(const uint8_t* r0, size_t row_bytes, const TokenLanes& lanes, int g, __m512* out)
{
    constexpr int kBlocks = Type::kBlocks;
    __m512 acc[R];
    for (int r = 0; r < R; ++r)
        acc[r] = _mm512_setzero_ps();
    Unit<kBlocks> unit[R];
    for (int64_t s = 0; s < lanes.blocks / kBlocks; ++s) {
        for (int r = 0; r < R; ++r) {
            const uint8_t* blk = r0 + static_cast<size_t>(r) * row_bytes + static_cast<size_t>(s) * Type::kBytes;
            prefetch_ahead(blk, Type::kBytes);
            Type::decode(blk, unit[r]);
        }
        for (int j = 0; j < kBlocks; ++j) {
            const int64_t b = s * kBlocks + j;
            const int32_t* xq = lanes.q_at(g, b);
            const __m512 xs = _mm512_loadu_ps(lanes.scale_at(g, b));
            // Where the integer sums start: -offset * the tokens' activation sums.
            __m512i start0 = _mm512_setzero_si512(), start1 = start0;
            __m512 scaled_sums = _mm512_setzero_ps();  // Q4_K: activation scale * block sum
            if constexpr (Type::kOffsetShift != 0 || Type::kMins) {
                const __m512i sum0 = _mm512_loadu_si512(lanes.sum_at(g, b));
                const __m512i sum1 = _mm512_loadu_si512(lanes.sum_at(g, b) + kLaneTokens);
                if constexpr (Type::kHalves) {
                    start0 = _mm512_sub_epi32(start0, shifted_left(sum0, Type::kOffsetShift));
                    start1 = _mm512_sub_epi32(start1, shifted_left(sum1, Type::kOffsetShift));
                } else if constexpr (Type::kOffsetShift != 0) {
                    const __m512i sum = _mm512_add_epi32(sum0, sum1);
                    start0 = _mm512_sub_epi32(start0, shifted_left(sum, Type::kOffsetShift));
                }
                if constexpr (Type::kMins)
                    scaled_sums = _mm512_mul_ps(xs, to_floats(_mm512_add_epi32(sum0, sum1)));
            }
            __m512i dot0[R], dot1[R];
            for (int r = 0; r < R; ++r) {
                dot0[r] = start0;
                dot1[r] = start1;
            }
            for (int k = 0; k < 8; ++k) {
                const __m512i x = _mm512_loadu_si512(xq + k * kLaneTokens);
                for (int r = 0; r < R; ++r) {
                    const __m512i w = _mm512_set1_epi32(static_cast<int>(u32_at(unit[r].u[j] + 4 * k)));
                    if (Type::kHalves && k >= 4)
                        dot1[r] = _mm512_dpbusd_epi32(dot1[r], w, x);
                    else
                        dot0[r] = _mm512_dpbusd_epi32(dot0[r], w, x);
                }
            }
            for (int r = 0; r < R; ++r) {
                __m512i dot = dot0[r];
                if constexpr (Type::kHalves)
                    dot = _mm512_add_epi32(_mm512_mullo_epi32(dot0[r], _mm512_set1_epi32(unit[r].half_scale[j][0])),
                                           _mm512_mullo_epi32(dot1[r], _mm512_set1_epi32(unit[r].half_scale[j][1])));
                acc[r] = _mm512_fmadd_ps(to_floats(dot), _mm512_mul_ps(_mm512_set1_ps(unit[r].scale[j]), xs),
                                         acc[r]);
                if constexpr (Type::kMins)
                    acc[r] = _mm512_fnmadd_ps(_mm512_set1_ps(unit[r].min[j]), scaled_sums, acc[r]);
            }
        }
    }
    for (int r = 0; r < R; ++r)
        out[r] = acc[r];
}

// Writes rows r0 .. r0 + R - 1 of the tokens [token_begin, token_end) of group g.
template <typename Type, int R>
PYRAMID_AVX512VNNI void rows_to_y(const WeightView& w, const TokenLanes& lanes, int g, int token_begin, int token_end,
                                  float* y, int64_t r0)
{
    const size_t row_bytes = w.row_bytes();
    __m512 dots[R];
    dot_rows<Type, R>(reinterpret_cast<const uint8_t*>(w.data) + static_cast<size_t>(r0) * row_bytes, row_bytes, lanes,
                      g, dots);
    for (int r = 0; r < R; ++r) {
        alignas(64) float lane[kLaneTokens];
        _mm512_store_ps(lane, dots[r]);
        for (int t = token_begin; t < token_end; ++t)
            y[static_cast<int64_t>(t) * w.rows + r0 + r] = lane[t - g * kLaneTokens];
    }
}

template <typename Type>
void lane_rows_of(const WeightView& w, const Int8Activations& a, int group, int token_begin, int token_end, float* y,
                  int64_t row_begin, int64_t row_end)
{
    constexpr int R = 4;  // rows sharing each activation load
    int64_t r = row_begin;
    for (; r + R <= row_end; r += R)
        rows_to_y<Type, R>(w, a.lanes, group, token_begin, token_end, y, r);
    for (; r < row_end; ++r)
        rows_to_y<Type, 1>(w, a.lanes, group, token_begin, token_end, y, r);
}

} // namespace

LaneRows lane_rows(TensorType type)
{
    switch (type) {
    case TensorType::Q8_0: return lane_rows_of<Q8_0Unit>;
    case TensorType::Q4_0: return lane_rows_of<Q4_0Unit>;
    case TensorType::Q4_K: return lane_rows_of<Q4_KUnit>;
    case TensorType::Q6_K: return lane_rows_of<Q6_KUnit>;
    default: return nullptr;
    }
}

} // namespace pyramid::cpu::int8_vnni

#endif
