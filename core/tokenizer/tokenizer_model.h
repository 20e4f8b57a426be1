#pragma once
// What a kind of tokenizer implements behind Tokenizer (tokenizer.h): SentencePiece
// (sentencepiece_tokenizer.h) or byte-level BPE (byte_level_bpe.h). The rest of the program
// only sees Tokenizer, so it does not care which kind a model brings.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pyramid {

class TokenizerModel {
public:
    virtual ~TokenizerModel() = default;

    // Ids of `text` as plain text: no BOS/EOS, and text that spells a control token
    // ("<|im_start|>", "<s>") becomes ordinary tokens, never the control token.
    virtual std::vector<int32_t> encode(std::string_view text) const = 0;
    // Text of `ids` (all in range; Tokenizer checks): control tokens decode to nothing, and the
    // result is valid UTF-8, with U+FFFD for each byte of a sequence that is incomplete or invalid.
    virtual std::string decode(std::span<const int32_t> ids) const = 0;
    // The bytes the token adds to text after other tokens (id in range): none for a control
    // token, a byte piece's one byte, a leading space where the piece has one (SentencePiece's
    // "▁" included: decode() drops it only at the start of a text). May end or begin in the
    // middle of a UTF-8 character.
    virtual std::string token_bytes(int32_t id) const = 0;
    // The token's own spelling in the vocabulary (id in range).
    virtual std::string piece(int32_t id) const = 0;
    virtual int vocab_size() const = 0;
    // The id of the control or user-defined token spelled exactly `text`, -1 if there is none.
    virtual int32_t special_token_id(std::string_view text) const = 0;
    // For reports: "SentencePiece BPE", "byte-level BPE (pre-tokenizer smollm)".
    virtual std::string description() const = 0;
};

} // namespace pyramid
