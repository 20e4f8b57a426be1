#pragma once
// Kernels launched to overlap the kernel before them against the same work in plain stream
// order, run by test_gpu_model (overlap_model_tests.cpp says what they check).
#include <vector>

#include "gpu_test.h"

std::vector<pyramid::gpu_test::TestCase> overlap_model_tests();
