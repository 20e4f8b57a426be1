#pragma once
// The tokenizer a model brings: text to token ids and back.
//
// Two kinds stand behind this one type (tokenizer_model.h), chosen by the model:
// - SentencePiece (LLaMA-1/2, Mistral): a tokenizer.model file (Hugging Face folders) or a
//   GGUF vocabulary with tokenizer.ggml.model "llama", run by the SentencePiece library so
//   ids equal Meta's reference;
// - byte-level BPE (tokenizer.ggml.model "gpt2": LLaMA-3, Qwen2, SmolLM), ids equal to
//   llama.cpp's for the same file.
//
// Control tokens such as <s>, </s> or <|im_start|> are never produced by encode(): their
// spelling in user input becomes ordinary tokens. Callers insert them as ids (see
// chat/chat_format.h, special_token_id()), which is what keeps user text from injecting them.
//
// A Tokenizer does not change after construction.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/tokenizer_model.h"
#include "tokenizer/vocab.h"

namespace pyramid {

class Tokenizer {
public:
    // Loads a SentencePiece model file. Throws pyramid::Error naming the file when it is
    // missing, unreadable or not a SentencePiece model.
    static Tokenizer from_model_file(const std::filesystem::path& tokenizer_model);
    // Builds the tokenizer from a GGUF file's tokenizer.ggml.* vocabulary. Throws
    // pyramid::Error naming the key at fault (a model other than "llama" or "gpt2", arrays of
    // different lengths, ids out of range, missing merges, an unknown pre-tokenizer).
    static Tokenizer from_embedded_vocab(const EmbeddedVocab& vocab);

    Tokenizer(Tokenizer&&) noexcept;
    Tokenizer& operator=(Tokenizer&&) noexcept;
    ~Tokenizer();

    // Token ids of `text` as plain text (SentencePiece adds its leading dummy space), no BOS
    // or EOS added.
    std::vector<int32_t> encode(std::string_view text) const;
    // Text of `ids`, valid UTF-8. BOS/EOS and other control tokens decode to nothing;
    // SentencePiece drops the leading space of the first piece. Bytes of a character not yet
    // complete decode to U+FFFD each. Throws pyramid::Error for an id outside [0, vocab_size()).
    std::string decode(std::span<const int32_t> ids) const;

    int32_t bos_id() const;  // -1 when the vocabulary has none
    int32_t eos_id() const;  // -1 when the vocabulary has none
    int vocab_size() const;
    // Whether prompts start with BOS: GGUF tokenizer.ggml.add_bos_token, true for a
    // tokenizer.model file (LLaMA's convention).
    bool add_bos() const;

    // Whether generating `id` ends a reply: EOS, and the control tokens chat models end
    // their turns with (<|im_end|>, <|eot_id|>, <|end|>, <end_of_turn>, <|endoftext|>, ...),
    // the set llama.cpp stops on.
    bool is_end_of_generation(int32_t id) const;

    // The id of the control (or user-defined) token spelled exactly `text`, -1 when the
    // vocabulary has none: how chat formats find "<|im_start|>" and the like.
    int32_t special_token_id(std::string_view text) const;

    // The bytes token `id` adds to a text after other tokens, exactly (" Hello", "\n", or one
    // byte of a character several tokens spell; control tokens: none), as OpenAI's log-probability
    // entries report a token. Throws pyramid::Error for an id out of range.
    std::string token_bytes(int32_t id) const;
    // The piece's own spelling, e.g. "▁Hello", "<0x0A>" or "ĠHello", for debugging and
    // inspection. Throws pyramid::Error for an id out of range.
    std::string piece(int32_t id) const;

    // "SentencePiece BPE" or "byte-level BPE (pre-tokenizer smollm)", for reports.
    std::string description() const;

    // A piece that decodes to one ASCII letter, alone and after any other piece, so the piece
    // after it decodes as it would anywhere in a sequence (TextStreamer restarts from it).
    // -1 when the vocabulary has none. Found once, at construction.
    int32_t neutral_letter_id() const { return neutral_letter_id_; }

private:
    Tokenizer(std::unique_ptr<TokenizerModel> model, int32_t bos_id, int32_t eos_id, bool add_bos);
    void check_id(int32_t id) const;

    std::unique_ptr<TokenizerModel> model_;
    int32_t bos_id_ = -1;
    int32_t eos_id_ = -1;
    bool add_bos_ = true;
    std::vector<int32_t> end_of_generation_;  // EOS and the end-of-turn control tokens, sorted
    int32_t neutral_letter_id_ = -1;
};

} // namespace pyramid
