#pragma once
// Hyperparameters of a LLaMA-architecture model, whichever file format they came from.
#include <cstdint>
#include <string>

namespace pyramid {

// How the two halves of each rotated pair sit inside a head's query/key vector.
enum class RopeLayout {
    Interleaved,  // pairs (2i, 2i+1): GGUF files (llama.cpp permutes HF weights on conversion)
    RotateHalf,   // pairs (i, i + head_dim/2): Hugging Face checkpoints
};

struct ModelConfig {
    std::string architecture = "llama";
    std::string name;
    int n_vocab = 0;
    int dim = 0;          // embedding width
    int ffn_dim = 0;      // SwiGLU hidden width
    int n_layers = 0;
    int n_heads = 0;
    int n_kv_heads = 0;   // < n_heads for grouped-query attention
    int head_dim = 0;     // dim / n_heads
    int context_length = 0;
    float rope_theta = 10000.0f;
    float rms_eps = 1e-5f;
    RopeLayout rope_layout = RopeLayout::Interleaved;
    bool tied_output = false;  // output projection shares the token embedding

    int kv_dim() const { return n_kv_heads * head_dim; }
};

} // namespace pyramid
