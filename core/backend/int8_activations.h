#pragma once
// Activations rounded to int8 for the integer dot products of int8_matmul.h: each token's
// row in blocks of 32 values, each block scaled by its largest magnitude (as ggml's Q8_0):
// x ≈ q * scale with q in [-127, 127], an error of at most scale / 2 per value. The integer
// sums of q per 16 values let the kernels apply what a K-quant subtracts from every weight
// (Q4_K/Q5_K's group minimum, Q6_K's offset of 32) once per group instead of per weight.
//
// Optionally the same numbers also in token lanes (TokenLanes below): kLaneTokens tokens side
// by side, for kernels that hold one token per vector lane (int8_lanes_vnni.h).
#include <cstdint>
#include <vector>

#include "backend/kernel_config.h"
#include "backend/worker_pool.h"

namespace pyramid::cpu {

constexpr int64_t kInt8Block = 32;
constexpr int64_t kInt8SumGroup = 16;
constexpr int kLaneTokens = 16;  // one 512-bit vector of int32 or float

// The one definition of the token-lane layout. Tokens go in groups of kLaneTokens (group g:
// tokens 16g .. 16g + 15); for group g and activation block b (32 values) there are
//   q:     8 x 16 words of 4 bytes; word [k][t] = q[16g + t][32b + 4k .. 32b + 4k + 3],
//   scale: 16 floats; [t] = scale of token 16g + t's block b,
//   sum:   2 x 16 int32; [h][t] = token 16g + t's sum of q over half h (16 values) of block b,
// with zeros for tokens past n (they add nothing to any dot).
struct TokenLanes {
    int groups = 0;
    int64_t blocks = 0;  // per token: cols / 32
    std::vector<int32_t> q;
    std::vector<float> scale;
    std::vector<int32_t> sum;

    const int32_t* q_at(int g, int64_t b) const { return q.data() + (g * blocks + b) * 8 * kLaneTokens; }
    const float* scale_at(int g, int64_t b) const { return scale.data() + (g * blocks + b) * kLaneTokens; }
    const int32_t* sum_at(int g, int64_t b) const { return sum.data() + (g * blocks + b) * 2 * kLaneTokens; }
    int32_t* q_at(int g, int64_t b) { return q.data() + (g * blocks + b) * 8 * kLaneTokens; }
    float* scale_at(int g, int64_t b) { return scale.data() + (g * blocks + b) * kLaneTokens; }
    int32_t* sum_at(int g, int64_t b) { return sum.data() + (g * blocks + b) * 2 * kLaneTokens; }
};

struct Int8Activations {
    int n = 0;          // tokens
    int64_t cols = 0;   // values per token, a multiple of kInt8Block
    std::vector<int8_t> q;    // [n][cols]
    std::vector<float> scale; // [n][cols / 32]
    std::vector<int16_t> group_sum; // [n][cols / 16]: the sum of q over each 16 values
    TokenLanes lanes;         // empty unless asked for (lanes.groups == 0)

    const int8_t* q_row(int t) const { return q.data() + static_cast<int64_t>(t) * cols; }
    const float* scale_row(int t) const { return scale.data() + static_cast<int64_t>(t) * (cols / kInt8Block); }
    const int16_t* group_sum_row(int t) const
    {
        return group_sum.data() + static_cast<int64_t>(t) * (cols / kInt8SumGroup);
    }
    // The value the kernels see in place of x[t][c].
    float rounded(int t, int64_t c) const { return float(q_row(t)[c]) * scale_row(t)[c / kInt8Block]; }
    bool has_lanes() const { return lanes.groups > 0; }
};

// Rounds x [n][cols] into `out` (its buffers are reused), and with `token_lanes` also lays
// the result out in out.lanes (else out.lanes is emptied). cols must be a multiple of 32.
// `isa` (supported here: kernel_config.h) changes the speed, never a bit of the result.
void quantize_activations(const float* x, int n, int64_t cols, Int8Activations& out, bool token_lanes = false,
                          KernelIsa isa = KernelIsa::Generic, WorkerPool* workers = nullptr);

} // namespace pyramid::cpu
