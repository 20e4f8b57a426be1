#pragma once
// The batched decode kernel tests (decode_attention and store_kv_decode), run by
// test_gpu_kernels (decode_attention_tests.cpp says what they check and with which tolerances).
#include <vector>

#include "gpu_test.h"

std::vector<pyramid::gpu_test::TestCase> decode_attention_tests();
