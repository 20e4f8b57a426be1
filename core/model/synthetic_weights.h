#pragma once
// Generated weights of any shape (usually a named one, model/model_shapes.h), for benchmarks
// without a model file: the speed of inference does not depend on the weights' values. The
// values follow from a seed (model/synthetic_value.h), so runs are repeatable.
#include <cstdint>
#include <functional>

#include "model/model_config.h"
#include "model/model_weights.h"
#include "model/synthetic_storage.h"

namespace pyramid {

// Matrices are stored as `storage` says: F32, F16 or BF16 values (rounded to nearest even), or
// blocks of a quantized type made of random bits with finite scales, sized so that the decoded
// values have the spread of the float ones (a quantized matrix needs cols to be a whole number
// of its blocks; anything else throws pyramid::Error naming the tensor). Norm vectors are F32
// ones. Views are named as in GGUF files ("blk.0.attn_q.weight"), and `synthetic` is set
// either way. A config with tied_output gets one matrix, viewed as both token_embedding and
// output, as the loaders give such a model.
//
// on_host = true: every view points into host buffers kept in `storage`, filled in parallel;
// any backend can use them (llama2-7b in F16 takes 12.6 GiB of memory).
// on_host = false: float matrices carry name, type and shape but no data (nothing is
// allocated); a backend that generates weights itself (the CUDA backend, on the GPU) reads
// `synthetic`. The CPU backend refuses such weights. Quantized matrices are always made on
// the host (random bits are cheap; a 7B Q4_K_M model is 3.8 GiB) and uploaded as they are.
//
// `progress`, if given, is called from the calling thread with the fraction of bytes done,
// after each tensor, ending with 1.0.
// One matrix as generate_model_weights makes them: rows x cols of `type` (F32, F16, BF16 or a
// quantized block type) into `out`, which holds tensor_row_bytes(type, cols) * rows bytes;
// `key` picks the values.
void fill_synthetic_matrix(std::byte* out, TensorType type, int64_t rows, int64_t cols, uint64_t key);

ModelWeights generate_model_weights(const ModelConfig& config, const SyntheticStorage& storage, uint64_t seed,
                                    bool on_host, const std::function<void(double)>& progress = {});

} // namespace pyramid
