#pragma once
// The text pyramid-inspect prints: the model summary (format, hyperparameters, tokenizer,
// every tensor, storage by type) and the memory estimate.
#include <cstdio>
#include <string>

#include "memory_estimate.h"
#include "model_contents.h"

namespace pyramid::inspect {

void print_summary(std::FILE* out, const ModelContents& contents);

// `preset` names the PyramidInfer settings the estimate used.
void print_memory_estimate(std::FILE* out, const WeightMemory& weights, const KvEstimate& kv,
                           const CudaScratch& cuda_scratch, const std::string& preset);

} // namespace pyramid::inspect
