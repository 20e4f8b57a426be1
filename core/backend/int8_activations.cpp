#include "backend/int8_activations.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include "backend/avx2_blocks.h"
#endif

namespace pyramid::cpu {

namespace {

// Below this many values one thread rounds them faster than a team can start.
constexpr int64_t kParallelValues = int64_t(1) << 16;

// x rounded to the nearest integer, ties to even, as std::nearbyint does in the default
// rounding mode, for |x| <= 2^22: adding 1.5 * 2^23 leaves no fraction bits, so the float
// addition itself rounds. Unlike the libm call, the compiler vectorises it.
inline float round_to_even(float x)
{
    constexpr float kShift = 12582912.0f;  // 1.5 * 2^23
    return (x + kShift) - kShift;
}

// The scale of a block whose largest magnitude is amax, and what its values are multiplied by.
inline float block_scale(float amax) { return amax / 127.0f; }
inline float inverse_of(float scale) { return scale > 0.0f ? 1.0f / scale : 0.0f; }

// Block b (32 values) of token t: q, its scale and its two sums per 16.
void round_block(const float* xb, int8_t* qb, float& scale, int16_t* sums)
{
    float amax = 0.0f;
    for (int i = 0; i < kInt8Block; ++i)
        amax = std::max(amax, std::abs(xb[i]));
    scale = block_scale(amax);
    const float inverse = inverse_of(scale);
    for (int64_t g = 0; g < kInt8Block / kInt8SumGroup; ++g) {
        int total = 0;  // at most 16 * 127: fits int16
        for (int64_t i = g * kInt8SumGroup; i < (g + 1) * kInt8SumGroup; ++i) {
            qb[i] = static_cast<int8_t>(round_to_even(xb[i] * inverse));
            total += qb[i];
        }
        sums[g] = static_cast<int16_t>(total);
    }
}

#if defined(__x86_64__) || defined(__i386__)
// round_block's very bytes for finite values, eight values an instruction: the maximum is
// exact in any order, the multiply and the rounding adds are round_block's, and a rounded
// value (an integer in [-127, 127]) converts exactly.
PYRAMID_AVX2 void round_block_avx2(const float* xb, int8_t* qb, float& scale, int16_t* sums)
{
    const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256 x[4], amax = _mm256_setzero_ps();
    for (int k = 0; k < 4; ++k) {
        x[k] = _mm256_loadu_ps(xb + 8 * k);
        amax = _mm256_max_ps(_mm256_and_ps(x[k], magnitude), amax);
    }
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(amax), _mm256_extractf128_ps(amax, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    scale = block_scale(_mm_cvtss_f32(m));
    const __m256 inverse = _mm256_set1_ps(inverse_of(scale));
    const __m256 shift = _mm256_set1_ps(12582912.0f);  // round_to_even's 1.5 * 2^23
    __m256i q[4];
    for (int k = 0; k < 4; ++k) {
        const __m256 rounded = _mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(x[k], inverse), shift), shift);
        q[k] = _mm256_cvttps_epi32(rounded);
    }
    for (int g = 0; g < 2; ++g) {
        const __m256i s = _mm256_add_epi32(q[2 * g], q[2 * g + 1]);
        __m128i t = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
        t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0x4e));
        t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xb1));
        sums[g] = static_cast<int16_t>(_mm_cvtsi128_si32(t));
    }
    // packs work within 128-bit halves: the words come out as 0-3 8-11 | 4-7 12-15, the bytes
    // as 0-3 8-11 16-19 24-27 | 4-7 12-15 20-23 28-31, which one permutation of dwords orders.
    const __m256i words01 = _mm256_packs_epi32(q[0], q[1]), words23 = _mm256_packs_epi32(q[2], q[3]);
    const __m256i bytes = _mm256_packs_epi16(words01, words23);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(qb),
                        _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
}
#endif

// Block b of token t rounded into `out`, with lanes also its words in the token-lane layout.
void quantize_block(const float* xb, int t, int64_t b, Int8Activations& out, KernelIsa isa)
{
    const int64_t blocks = out.cols / kInt8Block;
    int8_t* qb = out.q.data() + t * out.cols + b * kInt8Block;
    int16_t* sums = out.group_sum.data() + (t * blocks + b) * (kInt8Block / kInt8SumGroup);
    float& scale = out.scale[static_cast<size_t>(t * blocks + b)];
#if defined(__x86_64__) || defined(__i386__)
    if (runs_avx2(isa))
        round_block_avx2(xb, qb, scale, sums);
    else
#endif
        round_block(xb, qb, scale, sums);
    TokenLanes& lanes = out.lanes;
    if (lanes.groups == 0)
        return;
    const int g = t / kLaneTokens, lane = t % kLaneTokens;
    for (int k = 0; k < 8; ++k)
        std::memcpy(lanes.q_at(g, b) + k * kLaneTokens + lane, qb + 4 * k, 4);
    lanes.scale_at(g, b)[lane] = scale;
    for (int h = 0; h < 2; ++h)
        lanes.sum_at(g, b)[h * kLaneTokens + lane] = sums[h];
}

// The lanes of tokens n .. (the end of the last group) hold zeros.
void clear_padding(int n, TokenLanes& lanes)
{
    for (int t = n; t < lanes.groups * kLaneTokens; ++t) {
        const int g = t / kLaneTokens, lane = t % kLaneTokens;
        for (int64_t b = 0; b < lanes.blocks; ++b) {
            for (int k = 0; k < 8; ++k)
                lanes.q_at(g, b)[k * kLaneTokens + lane] = 0;
            lanes.scale_at(g, b)[lane] = 0.0f;
            for (int h = 0; h < 2; ++h)
                lanes.sum_at(g, b)[h * kLaneTokens + lane] = 0;
        }
    }
}

} // namespace

void quantize_activations(const float* x, int n, int64_t cols, Int8Activations& out, bool token_lanes, KernelIsa isa,
                          WorkerPool* workers)
{
    const int64_t blocks = cols / kInt8Block;
    out.n = n;
    out.cols = cols;
    out.q.resize(static_cast<size_t>(n * cols));
    out.scale.resize(static_cast<size_t>(n * blocks));
    out.group_sum.resize(static_cast<size_t>(n * cols / kInt8SumGroup));
    TokenLanes& lanes = out.lanes;
    lanes.groups = token_lanes ? (n + kLaneTokens - 1) / kLaneTokens : 0;
    lanes.blocks = blocks;
    const size_t units = static_cast<size_t>(lanes.groups * blocks);
    lanes.q.resize(units * 8 * kLaneTokens);
    lanes.scale.resize(units * kLaneTokens);
    lanes.sum.resize(units * 2 * kLaneTokens);
    clear_padding(n, lanes);
    // With lanes, a lane group's tokens on one thread: they share the cache lines of their
    // lanes. A single task is run on the calling thread: a team would only wait for it.
    const int per_task = token_lanes ? kLaneTokens : 1;
    const int tasks = (n + per_task - 1) / per_task;
    run_tasks(workers, tasks, n * cols >= kParallelValues, [&](int64_t task, int) {
        for (int t = static_cast<int>(task) * per_task; t < std::min(n, static_cast<int>(task + 1) * per_task); ++t)
            for (int64_t b = 0; b < blocks; ++b)
                quantize_block(x + t * cols + b * kInt8Block, t, b, out, isa);
    });
}

} // namespace pyramid::cpu
