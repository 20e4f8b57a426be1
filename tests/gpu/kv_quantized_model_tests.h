#pragma once
// Whole-model runs of the CUDA backend with its KV cache in q8 and q4, run by test_gpu_model
// (kv_quantized_model_tests.cpp says what they check and with which tolerances).
#include <vector>

#include "gpu_test.h"

std::vector<pyramid::gpu_test::TestCase> kv_quantized_model_tests();
