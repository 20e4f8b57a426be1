#pragma once
// The LLaMA SentencePiece tokenizer (tokenizer.ggml.model "llama", or a tokenizer.model file),
// through the SentencePiece library itself, so ids equal Meta's reference.
#include <memory>
#include <string>

#include "tokenizer/tokenizer_model.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace pyramid {

class SentencePieceTokenizer : public TokenizerModel {
public:
    // `processor` is loaded already (Tokenizer checks how that went).
    explicit SentencePieceTokenizer(std::unique_ptr<sentencepiece::SentencePieceProcessor> processor);
    ~SentencePieceTokenizer() override;

    std::vector<int32_t> encode(std::string_view text) const override;
    std::string decode(std::span<const int32_t> ids) const override;
    std::string token_bytes(int32_t id) const override;
    std::string piece(int32_t id) const override;
    int vocab_size() const override;
    int32_t special_token_id(std::string_view text) const override;
    std::string description() const override { return "SentencePiece BPE"; }

    int32_t bos_id() const;
    int32_t eos_id() const;

private:
    std::unique_ptr<sentencepiece::SentencePieceProcessor> processor_;
};

} // namespace pyramid
