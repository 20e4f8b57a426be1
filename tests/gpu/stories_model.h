#pragma once
// What the whole-model GPU tests (test_gpu_model) share: stories260K loaded once per process,
// its golden cases (shared/golden/*.json), one CUDA backend per precision and a CPU backend to
// hold them to. Tests that need a backend of their own options build it from weights().
#include <string>

#include "backend/cpu_backend.h"
#include "cuda_backend.h"
#include "eval/replay.h"
#include "model/model_weights.h"

namespace pyramid::gpu_test {

inline constexpr const char* kGoldenCases[] = {"full_cache", "reference_defaults", "aggressive_decay",
                                               "interval2_linear_recent40"};

const ModelWeights& weights();
ReplayRecord golden(const std::string& name);
cuda::CudaBackend& gpu(cuda::Precision p);
CpuBackend& reference_cpu();  // what the GPU backends are held to

} // namespace pyramid::gpu_test
