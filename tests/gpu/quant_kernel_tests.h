#pragma once
// The quantized-weight kernel tests, run by test_gpu_kernels (quant_kernel_tests.cpp says what
// they check and with which tolerances).
#include <vector>

#include "gpu_test.h"

std::vector<pyramid::gpu_test::TestCase> quant_kernel_tests();
