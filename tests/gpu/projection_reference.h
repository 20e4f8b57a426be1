#pragma once
// What the projection kernels' tests (quant_kernel_tests.cpp, half_matvec_tests.cpp) share: the
// reference they check against, y = x W^T (+ y0) in float64 over float weights, with the
// tolerance of a float32 sum of those products (each value within 1e-5 * sum_c |w[r, c] x[t, c]|;
// the tests' headers say why that bounds their kernels' summation), and a check of equal bits.
#include <cstdint>
#include <string>
#include <vector>

namespace pyramid::gpu_test {

struct Reference {
    std::vector<float> y;            // [n, rows]
    std::vector<double> magnitude;   // sum |w x| (+ |y0|) per value: the scale of the rounding error
};

// w: [rows, cols], x: [n, cols], y0 (may be null): [n, rows] added to the products.
Reference reference(const std::vector<float>& w, const std::vector<float>& x, int64_t rows, int64_t cols, int n,
                    const std::vector<float>* y0);

// Fails (gpu_test.h's fail) naming the first of the values whose bits differ.
void check_bits(const std::string& what, const std::vector<float>& actual, const std::vector<float>& expected);

// Fails (gpu_test.h's fail) naming the worst value when any is off by more than the tolerance.
void check_projection(const std::string& what, const std::vector<float>& actual, const Reference& expected);

} // namespace pyramid::gpu_test
