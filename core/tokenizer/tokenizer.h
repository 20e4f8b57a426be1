#pragma once
// The LLaMA SentencePiece tokenizer: text to token ids and back.
//
// It wraps the SentencePiece library, loaded either from a tokenizer.model file (Hugging
// Face folders) or from the vocabulary a GGUF file embeds, so both kinds of model tokenize
// identically to Meta's reference.
//
// Control pieces such as <s> and </s> are never produced by encode(): the literal text
// "<s>" in user input becomes ordinary pieces. Callers insert BOS/EOS as ids (see
// chat/chat_format.h), which is what keeps user text from injecting them.
//
// A Tokenizer does not change after construction.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/vocab.h"

namespace pyramid {

class Tokenizer {
public:
    // Loads a SentencePiece model file. Throws pyramid::Error naming the file when it is
    // missing, unreadable or not a SentencePiece model.
    static Tokenizer from_model_file(const std::filesystem::path& tokenizer_model);
    // Builds the tokenizer from a GGUF file's tokenizer.ggml.* vocabulary. Throws
    // pyramid::Error naming the key at fault (model other than "llama", arrays of different
    // lengths, ids out of range).
    static Tokenizer from_embedded_vocab(const EmbeddedVocab& vocab);

    Tokenizer(Tokenizer&&) noexcept;
    Tokenizer& operator=(Tokenizer&&) noexcept;
    ~Tokenizer();

    // Token ids of `text` (with SentencePiece's leading dummy space), no BOS or EOS added.
    std::vector<int32_t> encode(std::string_view text) const;
    // Text of `ids`. BOS/EOS and other control tokens decode to nothing; the leading space
    // of the first piece is dropped, as SentencePiece does. Throws pyramid::Error for an
    // id outside [0, vocab_size()).
    std::string decode(std::span<const int32_t> ids) const;

    int32_t bos_id() const;  // -1 when the vocabulary has none
    int32_t eos_id() const;  // -1 when the vocabulary has none
    int vocab_size() const;
    // Whether prompts start with BOS: GGUF tokenizer.ggml.add_bos_token, true for a
    // tokenizer.model file (LLaMA's convention).
    bool add_bos() const;

    // The piece's own spelling, e.g. "▁Hello" or "<0x0A>", for debugging and inspection.
    // Throws pyramid::Error for an id out of range.
    std::string piece(int32_t id) const;

    // A piece that decodes to one ASCII letter, alone and after any other piece, so the piece
    // after it decodes as it would anywhere in a sequence (TextStreamer restarts from it).
    // -1 when the vocabulary has none. Found once, at construction.
    int32_t neutral_letter_id() const;

private:
    struct Impl;
    explicit Tokenizer(std::unique_ptr<Impl> impl);
    void check_id(int32_t id) const;

    std::unique_ptr<Impl> impl_;
};

} // namespace pyramid
