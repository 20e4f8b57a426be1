#pragma once
// The device memory tests, run by test_gpu_kernels (memory_tests.cpp says what they check).
#include <vector>

#include "gpu_test.h"

std::vector<pyramid::gpu_test::TestCase> memory_tests();
