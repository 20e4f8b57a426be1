#include "tokenizer/tokenizer.h"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <array>
#include <system_error>

#include "tokenizer/byte_level_bpe.h"
#include "tokenizer/sentencepiece_model_builder.h"
#include "tokenizer/sentencepiece_tokenizer.h"
#include "util/error.h"

namespace pyramid {
namespace {

bool is_ascii_letter(std::string_view text)
{
    return text.size() == 1 && ((text[0] >= 'a' && text[0] <= 'z') || (text[0] >= 'A' && text[0] <= 'Z'));
}

// The spellings of the control tokens that end a turn in the chat models in use (llama.cpp
// treats the same ones as end of generation).
constexpr std::array<std::string_view, 9> kEndOfTurnTokens = {
    "<|im_end|>", "<|eot_id|>", "<|eom_id|>", "<|end|>", "<end_of_turn>",
    "<|endoftext|>", "<EOT>", "<|end_of_text|>", "<|end▁of▁sentence|>",
};

}  // namespace

Tokenizer::Tokenizer(std::unique_ptr<TokenizerModel> model, int32_t bos_id, int32_t eos_id, bool add_bos)
    : model_(std::move(model)), bos_id_(bos_id), eos_id_(eos_id), add_bos_(add_bos)
{
    if (eos_id_ >= 0)
        end_of_generation_.push_back(eos_id_);
    for (const std::string_view spelling : kEndOfTurnTokens)
        if (const int32_t id = model_->special_token_id(spelling); id >= 0)
            end_of_generation_.push_back(id);
    std::sort(end_of_generation_.begin(), end_of_generation_.end());

    // SentencePiece vocabularies keep their single characters near the end; byte-level ones
    // near the start, where the search ends soon enough.
    for (int32_t id = vocab_size() - 1; id >= 0; --id) {
        const int32_t single[] = {id};
        const std::string spelling = piece(id);
        if (is_ascii_letter(spelling) && decode(single) == spelling) {
            neutral_letter_id_ = id;
            break;
        }
    }
}

Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Tokenizer Tokenizer::from_model_file(const std::filesystem::path& tokenizer_model)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(tokenizer_model, ec))
        throw Error("tokenizer model " + tokenizer_model.string() + " does not exist or is not a file");

    auto processor = std::make_unique<sentencepiece::SentencePieceProcessor>();
    const auto status = processor->Load(tokenizer_model.string());
    if (!status.ok())
        throw Error("tokenizer model " + tokenizer_model.string() +
                    " is not a valid SentencePiece model: " + status.ToString());
    auto model = std::make_unique<SentencePieceTokenizer>(std::move(processor));
    const int32_t bos = model->bos_id();
    const int32_t eos = model->eos_id();
    return Tokenizer(std::move(model), bos, eos, true);
}

Tokenizer Tokenizer::from_embedded_vocab(const EmbeddedVocab& vocab)
{
    if (vocab.model == "gpt2") {
        const auto n = static_cast<int32_t>(vocab.tokens.size());
        for (const auto& [key, id] : {std::pair{"bos_token_id", vocab.bos_id}, std::pair{"eos_token_id", vocab.eos_id}})
            if (id < -1 || id >= n)
                throw Error("tokenizer.ggml." + std::string(key) + " is " + std::to_string(id) +
                            ", expected an id in [0, " + std::to_string(n) + ") or -1 (none)");
        return Tokenizer(std::make_unique<ByteLevelBpe>(vocab), vocab.bos_id, vocab.eos_id, vocab.add_bos);
    }
    const std::string model_proto = build_sentencepiece_model(vocab);
    auto processor = std::make_unique<sentencepiece::SentencePieceProcessor>();
    const auto status = processor->LoadFromSerializedProto(model_proto);
    if (!status.ok())
        throw Error("the embedded tokenizer.ggml vocabulary (" + std::to_string(vocab.tokens.size()) +
                    " tokens) is not a valid SentencePiece model: " + status.ToString());
    return Tokenizer(std::make_unique<SentencePieceTokenizer>(std::move(processor)), vocab.bos_id, vocab.eos_id,
                     vocab.add_bos);
}

std::vector<int32_t> Tokenizer::encode(std::string_view text) const { return model_->encode(text); }

std::string Tokenizer::decode(std::span<const int32_t> ids) const
{
    for (const int32_t id : ids)
        check_id(id);
    return model_->decode(ids);
}

int32_t Tokenizer::bos_id() const { return bos_id_; }
int32_t Tokenizer::eos_id() const { return eos_id_; }
int Tokenizer::vocab_size() const { return model_->vocab_size(); }
bool Tokenizer::add_bos() const { return add_bos_; }
std::string Tokenizer::description() const { return model_->description(); }
int32_t Tokenizer::special_token_id(std::string_view text) const { return model_->special_token_id(text); }

bool Tokenizer::is_end_of_generation(int32_t id) const
{
    return std::binary_search(end_of_generation_.begin(), end_of_generation_.end(), id);
}

std::string Tokenizer::token_bytes(int32_t id) const
{
    check_id(id);
    return model_->token_bytes(id);
}

std::string Tokenizer::piece(int32_t id) const
{
    check_id(id);
    return model_->piece(id);
}

void Tokenizer::check_id(int32_t id) const
{
    if (id < 0 || id >= vocab_size())
        throw Error("token id " + std::to_string(id) + " is out of range [0, " +
                    std::to_string(vocab_size()) + ")");
}

} // namespace pyramid
