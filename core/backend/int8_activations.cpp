#include "backend/int8_activations.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace pyramid::cpu {

namespace {

void lay_out_lanes(const Int8Activations& a, TokenLanes& lanes)
{
    lanes.groups = (a.n + kLaneTokens - 1) / kLaneTokens;
    lanes.blocks = a.cols / kInt8Block;
    const size_t units = static_cast<size_t>(lanes.groups * lanes.blocks);
    lanes.q.assign(units * 8 * kLaneTokens, 0);
    lanes.scale.assign(units * kLaneTokens, 0.0f);
    lanes.sum.assign(units * 2 * kLaneTokens, 0);
    for (int t = 0; t < a.n; ++t) {
        const int lane = t % kLaneTokens;
        for (int64_t b = 0; b < lanes.blocks; ++b) {
            const size_t unit = static_cast<size_t>((t / kLaneTokens) * lanes.blocks + b);
            for (int k = 0; k < 8; ++k)
                std::memcpy(&lanes.q[(unit * 8 + k) * kLaneTokens + lane], a.q_row(t) + b * kInt8Block + 4 * k, 4);
            lanes.scale[unit * kLaneTokens + lane] = a.scale_row(t)[b];
            for (int h = 0; h < 2; ++h)
                lanes.sum[(unit * 2 + h) * kLaneTokens + lane] = a.group_sum_row(t)[2 * b + h];
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
    for (int64_t b = 0; b < n * blocks; ++b) {
        const float* xb = x + b * kInt8Block;
        int8_t* qb = out.q.data() + b * kInt8Block;
        float amax = 0.0f;
        for (int i = 0; i < kInt8Block; ++i)
            amax = std::max(amax, std::abs(xb[i]));
        const float scale = amax / 127.0f;
        const float inverse = scale > 0.0f ? 1.0f / scale : 0.0f;
        int16_t* sums = out.group_sum.data() + b * (kInt8Block / kInt8SumGroup);
        for (int64_t g = 0; g < kInt8Block / kInt8SumGroup; ++g) {
            int total = 0;  // at most 16 * 127: fits int16
            for (int64_t i = g * kInt8SumGroup; i < (g + 1) * kInt8SumGroup; ++i) {
                qb[i] = static_cast<int8_t>(std::nearbyint(xb[i] * inverse));
                total += qb[i];
            }
            sums[g] = static_cast<int16_t>(total);
        }
        out.scale[static_cast<size_t>(b)] = scale;
    }
    if (token_lanes)
        lay_out_lanes(out, out.lanes);
    else
        out.lanes.groups = 0;
}

} // namespace pyramid::cpu
