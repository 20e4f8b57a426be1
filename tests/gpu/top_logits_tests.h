#pragma once
// The device top-k selection tests (top_logits, kernels/top_logits_ops.h), run by
// test_gpu_kernels (top_logits_tests.cpp says what they check).
#include <vector>

#include "gpu_test.h"

std::vector<pyramid::gpu_test::TestCase> top_logits_tests();
