#pragma once
// A tokenizer vocabulary as GGUF files embed it (tokenizer.ggml.*), before it becomes a
// tokenizer: a SentencePiece model ("llama") or a byte-level BPE ("gpt2").
#include <cstdint>
#include <string>
#include <vector>

namespace pyramid {

struct EmbeddedVocab {
    // tokenizer.ggml.model: "llama" (SentencePiece BPE with byte fallback, LLaMA-1/2, Mistral)
    // or "gpt2" (byte-level BPE with merges: LLaMA-3, Qwen2, SmolLM, ...).
    std::string model;
    std::vector<std::string> tokens;
    std::vector<float> scores;         // SentencePiece only
    std::vector<int32_t> token_types;  // 1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte
    std::vector<std::string> merges;   // gpt2 only: "left right", in rank order (tokenizer.ggml.merges)
    std::string pre;                   // gpt2 only: the pre-tokenizer's name (tokenizer.ggml.pre), "" if absent
    int32_t bos_id = 1;
    int32_t eos_id = 2;
    int32_t unk_id = 0;
    int32_t pad_id = -1;
    bool add_bos = true;
    bool add_eos = false;
    bool add_space_prefix = true;           // tokenizer.ggml.add_space_prefix: SentencePiece's dummy prefix
    bool remove_extra_whitespaces = false;  // tokenizer.ggml.remove_extra_whitespaces
};

// GGUF token types (llama.cpp's llama_token_type), shared by both kinds of vocabulary.
enum class TokenType : int32_t { Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6 };

} // namespace pyramid
