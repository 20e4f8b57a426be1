#pragma once
// The fp16 weights' matvec tests, run by test_gpu_kernels (half_matvec_tests.cpp says what they
// check and with which tolerance).
#include <vector>

#include "gpu_test.h"

std::vector<pyramid::gpu_test::TestCase> half_matvec_tests();
