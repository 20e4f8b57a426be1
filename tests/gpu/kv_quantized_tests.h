#pragma once
// The kernels over q8 and q4 KV entries (store, prefill attention and probe, key shift), run by
// test_gpu_kernels (kv_quantized_tests.cpp says what they check and with which tolerances).
#include <vector>

#include "gpu_test.h"

std::vector<pyramid::gpu_test::TestCase> kv_quantized_tests();
