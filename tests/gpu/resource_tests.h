#pragma once
// Device memory and plugin loading of the CUDA backend, run by test_gpu_model
// (resource_tests.cpp says what they check).
#include <vector>

#include "gpu_test.h"

std::vector<pyramid::gpu_test::TestCase> resource_tests();
