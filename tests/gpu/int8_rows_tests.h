#pragma once
// The tests of activations rounded to int8 for the fp16 matvec (int8_rows_tests.cpp says what
// they check), run by test_gpu_kernels, and the CPU's rounding other tests compare against.
#include <cstdint>
#include <vector>

#include "gpu_test.h"

std::vector<pyramid::gpu_test::TestCase> int8_rows_tests();

// x [n, cols] as the CPU's int8 path sees it: rounded per 32 values
// (core/backend/int8_activations.h).
std::vector<float> cpu_int8_rounded(const std::vector<float>& x, int n, int64_t cols);
