#include "backend/int8_activations.h"

#include <algorithm>
#include <cmath>
#include <cstring>

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

// Block b (32 values) of token t: q, its scale, its two sums per 16, and with lanes its words
// in the token-lane layout.
void quantize_block(const float* xb, int t, int64_t b, Int8Activations& out)
{
    const int64_t blocks = out.cols / kInt8Block;
    int8_t* qb = out.q.data() + t * out.cols + b * kInt8Block;
    float amax = 0.0f;
    for (int i = 0; i < kInt8Block; ++i)
        amax = std::max(amax, std::abs(xb[i]));
    const float scale = amax / 127.0f;
    const float inverse = scale > 0.0f ? 1.0f / scale : 0.0f;
    int16_t* sums = out.group_sum.data() + (t * blocks + b) * (kInt8Block / kInt8SumGroup);
    for (int64_t g = 0; g < kInt8Block / kInt8SumGroup; ++g) {
        int total = 0;  // at most 16 * 127: fits int16
        for (int64_t i = g * kInt8SumGroup; i < (g + 1) * kInt8SumGroup; ++i) {
            qb[i] = static_cast<int8_t>(round_to_even(xb[i] * inverse));
            total += qb[i];
        }
        sums[g] = static_cast<int16_t>(total);
    }
    out.scale[static_cast<size_t>(t * blocks + b)] = scale;
    TokenLanes& lanes = out.lanes;
    if (lanes.groups == 0)
        return;
    const int lane = t % kLaneTokens;
    const size_t unit = static_cast<size_t>((t / kLaneTokens) * blocks + b);
    for (int k = 0; k < 8; ++k)
        std::memcpy(&lanes.q[(unit * 8 + k) * kLaneTokens + lane], qb + 4 * k, 4);
    lanes.scale[unit * kLaneTokens + lane] = scale;
    for (int h = 0; h < 2; ++h)
        lanes.sum[(unit * 2 + h) * kLaneTokens + lane] = sums[h];
}

// The lanes of tokens n .. (the end of the last group) hold zeros.
void clear_padding(int n, TokenLanes& lanes)
{
    for (int t = n; t < lanes.groups * kLaneTokens; ++t) {
        const int lane = t % kLaneTokens;
        for (int64_t b = 0; b < lanes.blocks; ++b) {
            const size_t unit = static_cast<size_t>((t / kLaneTokens) * lanes.blocks + b);
            for (int k = 0; k < 8; ++k)
                lanes.q[(unit * 8 + k) * kLaneTokens + lane] = 0;
            lanes.scale[unit * kLaneTokens + lane] = 0.0f;
            for (int h = 0; h < 2; ++h)
                lanes.sum[(unit * 2 + h) * kLaneTokens + lane] = 0;
        }
    }
}

} // namespace

void quantize_activations(const float* x, int n, int64_t cols, Int8Activations& out, bool token_lanes)
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
    // A lane group's tokens on one thread: they share the cache lines of their lanes.
    const int groups = (n + kLaneTokens - 1) / kLaneTokens;
#pragma omp parallel for schedule(static) if (n * cols >= kParallelValues)
    for (int g = 0; g < groups; ++g)
        for (int t = g * kLaneTokens; t < std::min(n, (g + 1) * kLaneTokens); ++t)
            for (int64_t b = 0; b < blocks; ++b)
                quantize_block(x + t * cols + b * kInt8Block, t, b, out);
}

} // namespace pyramid::cpu
