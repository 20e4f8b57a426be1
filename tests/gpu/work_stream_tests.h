#pragma once
// The recording and replaying of decode steps as CUDA graphs, run by test_gpu_kernels
// (work_stream_tests.cpp says what they check).
#include <vector>

#include "gpu_test.h"

std::vector<pyramid::gpu_test::TestCase> work_stream_tests();
