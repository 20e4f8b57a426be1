#include "tokenizer/sentencepiece_tokenizer.h"

#include <sentencepiece_processor.h>

#include <string>
#include <string_view>
#include <type_traits>

#include "util/error.h"

namespace pyramid {

// SentencePiece speaks `int` ids; they are our int32_t ids without conversion.
static_assert(std::is_same_v<int, int32_t>);

SentencePieceTokenizer::SentencePieceTokenizer(std::unique_ptr<sentencepiece::SentencePieceProcessor> processor)
    : processor_(std::move(processor))
{
}

SentencePieceTokenizer::~SentencePieceTokenizer() = default;

std::vector<int32_t> SentencePieceTokenizer::encode(std::string_view text) const
{
    std::vector<int32_t> ids;
    const auto status = processor_->Encode(text, &ids);
    if (!status.ok())
        throw Error("cannot tokenize text: " + status.ToString());
    return ids;
}

std::string SentencePieceTokenizer::decode(std::span<const int32_t> ids) const
{
    std::string text;
    const auto status = processor_->Decode(std::vector<int>(ids.begin(), ids.end()), &text);
    if (!status.ok())
        throw Error("cannot decode token ids: " + status.ToString());
    return text;
}

std::string SentencePieceTokenizer::token_bytes(int32_t id) const
{
    if (processor_->IsControl(id) || processor_->IsUnused(id))
        return {};
    if (processor_->IsByte(id)) {  // "<0xE2>"
        const std::string piece = processor_->IdToPiece(id);
        return std::string(1, static_cast<char>(std::stoi(piece.substr(3, 2), nullptr, 16)));
    }
    if (processor_->IsUnknown(id))  // as the library writes it
        return decode(std::span(&id, 1));
    std::string text = processor_->IdToPiece(id);
    static constexpr std::string_view kSpace = "\xE2\x96\x81";  // U+2581, SentencePiece's space
    for (size_t at = text.find(kSpace); at != std::string::npos; at = text.find(kSpace, at + 1))
        text.replace(at, kSpace.size(), " ");
    return text;
}

std::string SentencePieceTokenizer::piece(int32_t id) const { return processor_->IdToPiece(id); }
int SentencePieceTokenizer::vocab_size() const { return processor_->GetPieceSize(); }
int32_t SentencePieceTokenizer::bos_id() const { return processor_->bos_id(); }
int32_t SentencePieceTokenizer::eos_id() const { return processor_->eos_id(); }

int32_t SentencePieceTokenizer::special_token_id(std::string_view text) const
{
    const int id = processor_->PieceToId(text);
    if (id < 0 || id >= vocab_size() || processor_->IdToPiece(id) != text)
        return -1;
    // This SentencePiece release cannot tell user-defined pieces from normal ones; LLaMA's
    // vocabularies have none.
    return processor_->IsControl(id) ? id : -1;
}

} // namespace pyramid
