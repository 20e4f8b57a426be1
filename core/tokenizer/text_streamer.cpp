#include "tokenizer/text_streamer.h"

#include <string_view>

namespace pyramid {
namespace {

// SentencePiece decodes each byte of an incomplete UTF-8 sequence as U+FFFD.
constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";

// Length of `text` without its trailing U+FFFD characters: those may still turn into a real
// character when the next byte-fallback tokens arrive. Everything before them is final.
size_t final_length(std::string_view text)
{
    while (text.ends_with(kReplacementChar))
        text.remove_suffix(kReplacementChar.size());
    return text.size();
}

}  // namespace

TextStreamer::TextStreamer(const Tokenizer& tokenizer, bool continues_text)
    : tokenizer_(&tokenizer), continues_text_(continues_text), anchor_(tokenizer.neutral_letter_id()),
      anchor_length_(anchor_ >= 0 ? 1 : 0)
{
    start();
}

void TextStreamer::start()
{
    window_.clear();
    shown_ = 0;
    // After the anchor, whose letter counts as shown, a piece is no longer the first.
    if (continues_text_ && anchor_ >= 0) {
        window_.push_back(anchor_);
        shown_ = anchor_length_;
    }
}

std::string TextStreamer::put(int32_t id)
{
    const int32_t single[] = {id};
    const std::string alone = tokenizer_->decode(single);  // also rejects a bad id up front

    window_.push_back(id);
    const std::string text = tokenizer_->decode(window_);
    const size_t final_end = final_length(text);
    std::string delta;
    if (final_end > shown_) {
        delta = text.substr(shown_, final_end - shown_);
        shown_ = final_end;
    }

    // With everything shown, a new window can start from an anchor: the pieces after it then
    // decode as they do in the full sequence (no leading-space stripping once some text came,
    // no byte run reaching back past it). The neutral anchor serves whatever this token was;
    // without one, the token itself anchors when its own text is non-empty and whole.
    if (final_end == text.size() && !text.empty()) {
        if (anchor_ >= 0) {
            window_.assign(1, anchor_);
            shown_ = anchor_length_;
        } else if (!alone.empty() && alone.find(kReplacementChar) == std::string::npos) {
            window_.assign(1, id);
            shown_ = alone.size();
        }
    }
    return delta;
}

std::string TextStreamer::finish()
{
    const std::string text = tokenizer_->decode(window_);
    std::string rest = text.substr(shown_);
    start();
    return rest;
}

} // namespace pyramid
