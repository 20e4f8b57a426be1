#pragma once
// The tokenizer vocabulary a GGUF file embeds under tokenizer.ggml.* (SentencePiece or
// byte-level BPE).
#include <optional>

#include "model/gguf_file.h"
#include "tokenizer/vocab.h"

namespace pyramid {

// Empty when the file has no tokenizer.ggml.model. Otherwise reads tokens (required), scores
// and token_type (optional, one per token), the bos/eos/unknown/padding ids (an id of -1 or
// 0xFFFFFFFF means "none" and becomes -1) and add_bos_token / add_eos_token; for model "gpt2"
// also merges (required) and pre (the pre-tokenizer's name, "" when absent). The model name is
// copied as is; deciding whether it is usable is the tokenizer's business. Throws
// pyramid::Error naming the file and key for wrong types, length mismatches and ids outside
// the vocabulary.
std::optional<EmbeddedVocab> read_gguf_vocab(const GgufFile& file);

} // namespace pyramid
