#pragma once
// The text pyramid-inspect prints: the model summary (format, hyperparameters, tokenizer,
// every tensor, storage by type) and the memory estimate.
#include <cstdio>
#include <string>
#include <vector>

#include "memory_estimate.h"
#include "model_contents.h"

namespace pyramid::inspect {

void print_summary(std::FILE* out, const ModelContents& contents);

// `preset` names the PyramidInfer settings the estimate used; the CPU column stores the cache
// as kv.cpu_types says, the CUDA column as kv.cuda_types.
void print_memory_estimate(std::FILE* out, const WeightMemory& weights, const KvEstimate& kv,
                           const CudaScratch& cuda_scratch, const std::string& preset);

// For each GPU memory size (GiB left for the model) and each of `kv_types` (as the backend
// stores them: gpu_fit_kv_types), the longest prompt the CUDA backend runs in one step with a
// full cache and with `pyramid` (named `preset`).
void print_gpu_fit(std::FILE* out, const ModelWeights& weights, const CompressionConfig& pyramid,
                   const std::string& preset, const std::vector<double>& gib, const std::vector<KvTypes>& kv_types);

} // namespace pyramid::inspect
