#pragma once
// Generated weights of any shape (usually a named one, model/model_shapes.h), for benchmarks
// without a model file: the speed of inference does not depend on the weights' values. The
// values follow from a seed (model/synthetic_value.h), so runs are repeatable.
#include <cstdint>
#include <functional>

#include "model/model_config.h"
#include "model/model_weights.h"
#include "model/tensor_type.h"

namespace pyramid {

// Matrices are stored as matrix_type (F32, F16 or BF16, rounded to nearest even; anything
// else throws pyramid::Error), norm vectors as F32 ones. Views are named as in GGUF files
// ("blk.0.attn_q.weight"), and `synthetic` is set either way. A config with tied_output gets
// one matrix, viewed as both token_embedding and output, as the loaders give such a model.
//
// on_host = true: every view points into host buffers kept in `storage`, filled in parallel;
// any backend can use them (llama2-7b in F16 takes 12.6 GiB of memory).
// on_host = false: views carry name, type and shape but no data (nothing is allocated); a
// backend that generates weights itself (the CUDA backend, on the GPU) reads `synthetic`.
// The CPU backend refuses such weights.
//
// `progress`, if given, is called from the calling thread with the fraction of bytes done,
// after each tensor, ending with 1.0.
ModelWeights generate_model_weights(const ModelConfig& config, TensorType matrix_type, uint64_t seed, bool on_host,
                                    const std::function<void(double)>& progress = {});

} // namespace pyramid
