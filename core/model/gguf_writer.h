#pragma once
// Writes a LLaMA model as a GGUF v3 file that this engine and llama.cpp both load, so the two
// engines can be measured side by side on the very same bytes (bench/gpu_llamacpp.py writes
// generated weights this way; speed does not depend on the weights' values).
//
// The file holds:
//   - llama.cpp's LLaMA metadata for `weights.config` (general.architecture "llama",
//     general.name, llama.context_length, embedding_length, block_count, feed_forward_length,
//     attention.head_count, head_count_kv, rope.dimension_count, rope.freq_base,
//     attention.layer_norm_rms_epsilon, vocab_size), and general.file_type when given;
//   - every "tokenizer.*" entry of `vocabulary`, as it is there (a GGUF file whose tokens are
//     the model's vocabulary, e.g. llama.cpp's vocab-only ggml-vocab-llama-spm.gguf for the
//     LLaMA-2 shapes of model/model_shapes.h);
//   - the tensors as GGUF names them (the views' names), in the views' own types and bytes:
//     token_embd, output_norm, output (left out when tied: llama.cpp reuses the embedding),
//     then each layer's; norms as vectors, matrices as [cols, rows] in ggml order; data
//     aligned to 32 bytes.
//
// Every view needs its data on the host (generate_model_weights with on_host = true, or a
// loaded file). Refused with pyramid::Error, before anything is written: weights without host
// data, loaded weights in Hugging Face's rope layout (GGUF files hold the pairs interleaved;
// llama.cpp permutes such weights when it converts them; generated weights, whose values mean
// nothing, are written as they are and read back interleaved), a vocabulary without tokenizer.ggml.tokens or whose
// token count is not config.n_vocab. The file is written as PATH.part and renamed to PATH
// when complete, so an interrupted write never leaves a file that looks whole; a write that
// fails throws pyramid::Error naming the path and removes the part file.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>

#include "model/gguf_file.h"
#include "model/model_weights.h"

namespace pyramid {

struct GgufWriteOptions {
    // llama.cpp's LLAMA_FTYPE number for general.file_type (1 = mostly F16, 15 = Q4_K_M, ...);
    // unset: not written (llama.cpp then guesses it from the tensors).
    std::optional<uint32_t> file_type;
    // Called from the calling thread with the fraction of tensor bytes written, ending with 1.0.
    std::function<void(double)> progress;
};

// Returns the bytes written.
uint64_t write_gguf_model(const std::filesystem::path& path, const ModelWeights& weights, const GgufFile& vocabulary,
                          const GgufWriteOptions& options = {});

} // namespace pyramid
