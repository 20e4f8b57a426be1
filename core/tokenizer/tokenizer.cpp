#include "tokenizer/tokenizer.h"

#include <sentencepiece_processor.h>

#include <system_error>
#include <type_traits>

#include "tokenizer/sentencepiece_model_builder.h"
#include "util/error.h"

namespace pyramid {

// SentencePiece speaks `int` ids; they are our int32_t ids without conversion.
static_assert(std::is_same_v<int, int32_t>);

struct Tokenizer::Impl {
    sentencepiece::SentencePieceProcessor processor;
    int32_t bos_id = -1;
    int32_t eos_id = -1;
    bool add_bos = true;
    int32_t neutral_letter_id = -1;
};

namespace {

bool is_ascii_letter(std::string_view text)
{
    return text.size() == 1 && ((text[0] >= 'a' && text[0] <= 'z') || (text[0] >= 'A' && text[0] <= 'Z'));
}

}  // namespace

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl))
{
    // SentencePiece vocabularies keep their single characters near the end.
    for (int32_t id = vocab_size() - 1; id >= 0; --id) {
        const int32_t single[] = {id};
        const std::string spelling = piece(id);
        if (is_ascii_letter(spelling) && decode(single) == spelling) {
            impl_->neutral_letter_id = id;
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

    auto impl = std::make_unique<Impl>();
    const auto status = impl->processor.Load(tokenizer_model.string());
    if (!status.ok())
        throw Error("tokenizer model " + tokenizer_model.string() +
                    " is not a valid SentencePiece model: " + status.ToString());
    impl->bos_id = impl->processor.bos_id();
    impl->eos_id = impl->processor.eos_id();
    impl->add_bos = true;
    return Tokenizer(std::move(impl));
}

Tokenizer Tokenizer::from_embedded_vocab(const EmbeddedVocab& vocab)
{
    const std::string model_proto = build_sentencepiece_model(vocab);

    auto impl = std::make_unique<Impl>();
    const auto status = impl->processor.LoadFromSerializedProto(model_proto);
    if (!status.ok())
        throw Error("the embedded tokenizer.ggml vocabulary (" + std::to_string(vocab.tokens.size()) +
                    " tokens) is not a valid SentencePiece model: " + status.ToString());
    impl->bos_id = vocab.bos_id;
    impl->eos_id = vocab.eos_id;
    impl->add_bos = vocab.add_bos;
    return Tokenizer(std::move(impl));
}

std::vector<int32_t> Tokenizer::encode(std::string_view text) const
{
    std::vector<int32_t> ids;
    const auto status = impl_->processor.Encode(text, &ids);
    if (!status.ok())
        throw Error("cannot tokenize text: " + status.ToString());
    return ids;
}

std::string Tokenizer::decode(std::span<const int32_t> ids) const
{
    for (const int32_t id : ids)
        check_id(id);
    std::string text;
    const auto status = impl_->processor.Decode(std::vector<int>(ids.begin(), ids.end()), &text);
    if (!status.ok())
        throw Error("cannot decode token ids: " + status.ToString());
    return text;
}

int32_t Tokenizer::bos_id() const { return impl_->bos_id; }
int32_t Tokenizer::eos_id() const { return impl_->eos_id; }
int Tokenizer::vocab_size() const { return impl_->processor.GetPieceSize(); }
bool Tokenizer::add_bos() const { return impl_->add_bos; }
int32_t Tokenizer::neutral_letter_id() const { return impl_->neutral_letter_id; }

std::string Tokenizer::piece(int32_t id) const
{
    check_id(id);
    return impl_->processor.IdToPiece(id);
}

void Tokenizer::check_id(int32_t id) const
{
    if (id < 0 || id >= vocab_size())
        throw Error("token id " + std::to_string(id) + " is out of range [0, " +
                    std::to_string(vocab_size()) + ")");
}

} // namespace pyramid
