#pragma once
// The quantized-model tests, run by test_gpu_model (quantized_model_tests.cpp says what they
// check).
#include <vector>

#include "gpu_test.h"

std::vector<pyramid::gpu_test::TestCase> quantized_model_tests();
