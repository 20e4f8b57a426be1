#pragma once
// Decode steps recorded as CUDA graphs against the same steps queued, run by test_gpu_model
// (graph_model_tests.cpp says what they check).
#include <vector>

#include "gpu_test.h"

std::vector<pyramid::gpu_test::TestCase> graph_model_tests();
