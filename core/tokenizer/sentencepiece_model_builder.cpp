#include "tokenizer/sentencepiece_model_builder.h"

#include <cmath>

#include <bit>
#include <cstdint>
#include <string_view>

#include "util/error.h"
#include "util/json_input.h"

namespace pyramid {
namespace {

// Field numbers of sentencepiece_model.proto (sentencepiece 0.1.9x).
namespace model_proto {
constexpr int pieces = 1;
constexpr int trainer_spec = 2;
constexpr int normalizer_spec = 3;
}  // namespace model_proto
namespace piece_field {
constexpr int piece = 1;
constexpr int score = 2;
constexpr int type = 3;
}  // namespace piece_field
namespace trainer_field {
constexpr int model_type = 3;
constexpr int vocab_size = 4;
constexpr int byte_fallback = 35;
constexpr int unk_id = 40;
constexpr int bos_id = 41;
constexpr int eos_id = 42;
constexpr int pad_id = 43;
}  // namespace trainer_field
namespace normalizer_field {
constexpr int name = 1;
constexpr int add_dummy_prefix = 3;
constexpr int remove_extra_whitespaces = 4;
constexpr int escape_whitespaces = 5;
}  // namespace normalizer_field

constexpr int kModelTypeBpe = 2;
constexpr int32_t kPieceTypeMin = 1;  // NORMAL
constexpr int32_t kPieceTypeUnknown = 2;
constexpr int32_t kPieceTypeControl = 3;
constexpr int32_t kPieceTypeMax = 6;  // BYTE

// Appends protobuf wire-format fields to a byte string.
class ProtoWriter {
public:
    void varint_field(int field, uint64_t value)
    {
        tag(field, kVarint);
        varint(value);
    }
    // Negative int32 values are sign-extended to ten bytes, as protobuf encodes them.
    void int32_field(int field, int32_t value)
    {
        varint_field(field, static_cast<uint64_t>(static_cast<int64_t>(value)));
    }
    void bool_field(int field, bool value) { varint_field(field, value ? 1 : 0); }
    void float_field(int field, float value)
    {
        tag(field, kFixed32);
        const auto bits = std::bit_cast<uint32_t>(value);
        for (int shift = 0; shift < 32; shift += 8)
            out_.push_back(static_cast<char>((bits >> shift) & 0xFF));
    }
    void bytes_field(int field, std::string_view bytes)
    {
        tag(field, kLengthDelimited);
        varint(bytes.size());
        out_.append(bytes);
    }
    void message_field(int field, const ProtoWriter& message) { bytes_field(field, message.out_); }

    std::string take() { return std::move(out_); }

private:
    enum WireType { kVarint = 0, kFixed32 = 5, kLengthDelimited = 2 };

    void tag(int field, WireType type) { varint((static_cast<uint64_t>(field) << 3) | type); }
    void varint(uint64_t value)
    {
        while (value >= 0x80) {
            out_.push_back(static_cast<char>((value & 0x7F) | 0x80));
            value >>= 7;
        }
        out_.push_back(static_cast<char>(value));
    }

    std::string out_;
};

void check_special_id(const char* key, int32_t id, size_t n_tokens, bool required)
{
    const bool absent = id == -1 && !required;
    if (!absent && (id < 0 || static_cast<size_t>(id) >= n_tokens))
        throw Error(std::string(key) + " is " + std::to_string(id) + ", expected an id in [0, " +
                    std::to_string(n_tokens) + ")" + (required ? "" : " or -1 (none)"));
}

void validate(const EmbeddedVocab& vocab)
{
    if (vocab.model != "llama")
        throw Error("tokenizer.ggml.model is " + json_excerpt(vocab.model) +
                    "; the vocabularies supported are \"llama\" (SentencePiece BPE) and \"gpt2\" (byte-level BPE)");
    const size_t n = vocab.tokens.size();
    if (n == 0)
        throw Error("tokenizer.ggml.tokens is empty");
    if (vocab.scores.size() != n)
        throw Error("tokenizer.ggml.scores has " + std::to_string(vocab.scores.size()) +
                    " entries, expected " + std::to_string(n) + " (one per token)");
    if (vocab.token_types.size() != n)
        throw Error("tokenizer.ggml.token_type has " + std::to_string(vocab.token_types.size()) +
                    " entries, expected " + std::to_string(n) + " (one per token)");
    for (size_t i = 0; i < n; ++i) {
        const int32_t type = vocab.token_types[i];
        if (type < kPieceTypeMin || type > kPieceTypeMax)
            throw Error("tokenizer.ggml.token_type[" + std::to_string(i) + "] is " +
                        std::to_string(type) + ", expected a SentencePiece piece type 1..6");
        if (vocab.tokens[i].empty())
            throw Error("tokenizer.ggml.tokens[" + std::to_string(i) + "] is empty");
        if (!std::isfinite(vocab.scores[i]))  // SentencePiece would merge by NaN, silently
            throw Error("tokenizer.ggml.scores[" + std::to_string(i) + "] is not a finite number");
    }
    check_special_id("tokenizer.ggml.unknown_token_id", vocab.unk_id, n, true);
    check_special_id("tokenizer.ggml.bos_token_id", vocab.bos_id, n, false);
    check_special_id("tokenizer.ggml.eos_token_id", vocab.eos_id, n, false);
    check_special_id("tokenizer.ggml.padding_token_id", vocab.pad_id, n, false);
    // The unknown piece is typed from the id (below); it cannot be BOS or EOS as well. (Padding
    // may be <unk>: fine-tunes often set pad_token to it, and padding is never encoded.)
    for (const auto& [key, id] : {std::pair{"bos_token_id", vocab.bos_id}, std::pair{"eos_token_id", vocab.eos_id}})
        if (id == vocab.unk_id)
            throw Error("tokenizer.ggml.unknown_token_id " + std::to_string(vocab.unk_id) + " (\"" +
                        vocab.tokens[vocab.unk_id] + "\") is also tokenizer.ggml." + key);
}

// SentencePiece finds <unk> by its piece type. llama.cpp's converters type every token that
// tokenizer_config.json calls special as control, <unk> included, and name it by id: so the
// id decides, and any other piece typed unknown becomes a control token.
int32_t piece_type(const EmbeddedVocab& vocab, size_t i)
{
    if (static_cast<int32_t>(i) == vocab.unk_id)
        return kPieceTypeUnknown;
    return vocab.token_types[i] == kPieceTypeUnknown ? kPieceTypeControl : vocab.token_types[i];
}

}  // namespace

std::string build_sentencepiece_model(const EmbeddedVocab& vocab)
{
    validate(vocab);

    ProtoWriter model;
    for (size_t i = 0; i < vocab.tokens.size(); ++i) {
        ProtoWriter piece;
        piece.bytes_field(piece_field::piece, vocab.tokens[i]);
        piece.float_field(piece_field::score, vocab.scores[i]);
        piece.varint_field(piece_field::type, static_cast<uint64_t>(piece_type(vocab, i)));
        model.message_field(model_proto::pieces, piece);
    }

    ProtoWriter trainer;
    trainer.varint_field(trainer_field::model_type, kModelTypeBpe);
    trainer.int32_field(trainer_field::vocab_size, static_cast<int32_t>(vocab.tokens.size()));
    trainer.bool_field(trainer_field::byte_fallback, true);
    trainer.int32_field(trainer_field::unk_id, vocab.unk_id);
    trainer.int32_field(trainer_field::bos_id, vocab.bos_id);
    trainer.int32_field(trainer_field::eos_id, vocab.eos_id);
    trainer.int32_field(trainer_field::pad_id, vocab.pad_id);
    model.message_field(model_proto::trainer_spec, trainer);

    // As LLaMA-2's tokenizer.model unless the file says otherwise: no Unicode normalization, a
    // leading space added, runs of whitespace kept as they are.
    ProtoWriter normalizer;
    normalizer.bytes_field(normalizer_field::name, "identity");
    normalizer.bool_field(normalizer_field::add_dummy_prefix, vocab.add_space_prefix);
    normalizer.bool_field(normalizer_field::remove_extra_whitespaces, vocab.remove_extra_whitespaces);
    normalizer.bool_field(normalizer_field::escape_whitespaces, true);
    model.message_field(model_proto::normalizer_spec, normalizer);

    return model.take();
}

} // namespace pyramid
