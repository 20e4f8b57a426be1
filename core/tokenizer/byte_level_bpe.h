#pragma once
// Byte-level BPE (tokenizer.ggml.model "gpt2"): the tokenizer of GPT-2 and of most models
// since (LLaMA-3, Qwen2, SmolLM), producing the ids llama.cpp produces for the same file.
//
// Encoding: the pre-tokenizer (pre_tokenizer.h) cuts the text into pieces; each piece's bytes
// are spelled with GPT-2's byte-to-character table (printable bytes as themselves, the others
// moved to U+0100 and up, so a space is "Ġ"); then the merges are applied, always the one of
// lowest rank first (the leftmost among equals), and each resulting symbol becomes its token.
// A symbol the vocabulary lacks falls back to the tokens of its single bytes, as llama.cpp
// does. Text is never searched for control tokens: "<|im_start|>" typed by a user is text.
//
// Decoding maps each token's characters back to bytes; control tokens decode to nothing,
// user-defined ones to their text. Invalid UTF-8 in the result (a character split across
// tokens and not yet complete) comes back as U+FFFD per byte, as SentencePiece does.
//
// Cost: the merges of a piece of n characters take O(n log n) (a heap of candidate pairs),
// so hostile text without spaces costs no more than ordinary text of its length.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/tokenizer_model.h"
#include "tokenizer/vocab.h"

namespace pyramid {

class ByteLevelBpe : public TokenizerModel {
public:
    // Throws pyramid::Error naming the tokenizer.ggml.* key at fault: no merges, a merge that is
    // not two parts separated by a space, token types of another length than the tokens, an
    // empty or duplicated token, an unknown pre-tokenizer.
    explicit ByteLevelBpe(const EmbeddedVocab& vocab);

    std::vector<int32_t> encode(std::string_view text) const override;
    std::string decode(std::span<const int32_t> ids) const override;
    std::string token_bytes(int32_t id) const override;
    std::string piece(int32_t id) const override { return tokens_[static_cast<size_t>(id)]; }
    int vocab_size() const override { return static_cast<int>(tokens_.size()); }
    int32_t special_token_id(std::string_view text) const override;
    std::string description() const override;

private:
    void encode_piece(std::string_view mapped, std::vector<int32_t>& out) const;
    void append_bytes(int32_t id, std::string& out) const;
    int32_t token_id(std::string_view text) const;  // -1 when absent
    int merge_rank(std::string_view left, std::string_view right) const;  // -1 when none

    std::vector<std::string> tokens_;
    std::vector<int32_t> types_;
    std::unordered_map<std::string, int32_t> ids_;
    std::unordered_map<std::string, int> ranks_;  // "left right" -> rank
    PreTokenizer pre_;
};

} // namespace pyramid
