#pragma once
// A SentencePiece vocabulary as GGUF files embed it (tokenizer.ggml.*), before it becomes a
// real SentencePiece model.
#include <cstdint>
#include <string>
#include <vector>

namespace pyramid {

struct EmbeddedVocab {
    std::string model;  // tokenizer.ggml.model: only "llama" (SentencePiece BPE) is supported
    std::vector<std::string> tokens;
    std::vector<float> scores;
    std::vector<int32_t> token_types;  // SentencePiece piece types: 1 normal, 2 unknown, 3 control, 6 byte
    int32_t bos_id = 1;
    int32_t eos_id = 2;
    int32_t unk_id = 0;
    int32_t pad_id = -1;
    bool add_bos = true;
    bool add_eos = false;
    bool add_space_prefix = true;           // tokenizer.ggml.add_space_prefix: SentencePiece's dummy prefix
    bool remove_extra_whitespaces = false;  // tokenizer.ggml.remove_extra_whitespaces
};

} // namespace pyramid
