#pragma once
// Activations rounded to int8 for the integer dot products of int8_matmul.h: each token's
// row in blocks of 32 values, each block scaled by its largest magnitude (as ggml's Q8_0):
// x ≈ q * scale with q in [-127, 127], an error of at most scale / 2 per value. The integer
// sums of q per 16 values let the kernels apply what a K-quant subtracts from every weight
// (Q4_K/Q5_K's group minimum, Q6_K's offset of 32) once per group instead of per weight.
#include <cstdint>
#include <vector>

namespace pyramid::cpu {

constexpr int64_t kInt8Block = 32;
constexpr int64_t kInt8SumGroup = 16;

struct Int8Activations {
    int n = 0;          // tokens
    int64_t cols = 0;   // values per token, a multiple of kInt8Block
    std::vector<int8_t> q;    // [n][cols]
    std::vector<float> scale; // [n][cols / 32]
    std::vector<int16_t> group_sum; // [n][cols / 16]: the sum of q over each 16 values

    const int8_t* q_row(int t) const { return q.data() + static_cast<int64_t>(t) * cols; }
    const float* scale_row(int t) const { return scale.data() + static_cast<int64_t>(t) * (cols / kInt8Block); }
    const int16_t* group_sum_row(int t) const
    {
        return group_sum.data() + static_cast<int64_t>(t) * (cols / kInt8SumGroup);
    }
    // The value the kernels see in place of x[t][c].
    float rounded(int t, int64_t c) const { return float(q_row(t)[c]) * scale_row(t)[c / kInt8Block]; }
};

// Rounds x [n][cols] into `out` (its buffers are reused). cols must be a multiple of 32.
void quantize_activations(const float* x, int n, int64_t cols, Int8Activations& out);

} // namespace pyramid::cpu
