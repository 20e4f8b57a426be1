#pragma once
// Turns generated token ids, fed one at a time, into the text to show as it grows.
//
// Decoding token by token is not the same as decoding the whole sequence: SentencePiece
// drops the leading space of the first piece only, and byte-fallback pieces (<0xE2> <0x82>
// <0xAC>) form one UTF-8 character across several tokens, decoding to U+FFFD while
// incomplete. The streamer re-decodes a short window of recent tokens and hands out only
// the part that can no longer change, so it never emits a partial or replaced character and
//
//     put(id_1) + put(id_2) + ... + put(id_n) + finish() == tokenizer.decode({id_1..id_n})
//
// Cost per token: two decodes of a window that is normally one or two tokens long, and never
// longer than the run of byte-fallback tokens of one unfinished character: once all decoded
// text is shown the window restarts from a neutral anchor (a one-letter piece), so text made
// only of such characters (emoji, scripts outside the vocabulary) streams in linear time.
#include <cstdint>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace pyramid {

class TextStreamer {
public:
    // `tokenizer` must outlive the streamer. `continues_text`: the tokens continue a text
    // already shown (a completion after its prompt), so SentencePiece's first piece keeps its
    // leading space, as in decode(prompt + ids); without it they begin a text, as a chat reply
    // does. (Needs the vocabulary's neutral letter, which every vocabulary met so far has;
    // without one the first piece loses its space either way.)
    explicit TextStreamer(const Tokenizer& tokenizer, bool continues_text = false);

    // Adds the next token; returns the text that became final with it, often empty while a
    // multi-byte character is still incomplete. Throws pyramid::Error for an id out of range.
    std::string put(int32_t id);

    // Returns the text still held back (a trailing incomplete character shows as U+FFFD, as
    // in decode()) and starts a new sequence (continuing a text again if the first did).
    std::string finish();

    // Tokens the next put() decodes again, anchor included (for tests: it stays short).
    size_t window_length() const { return window_.size(); }

private:
    void start();

    const Tokenizer* tokenizer_;
    bool continues_text_;
    // Tokenizer::neutral_letter_id(): the next piece decodes after it as it would in the
    // full sequence. -1 when the vocabulary has none.
    int32_t anchor_;
    size_t anchor_length_;
    // Tokens still needed to decode what comes next. When window_ does not start at the
    // first token, its first token is an anchor whose text was already shown: it keeps
    // SentencePiece from treating the next piece as the start of the text.
    std::vector<int32_t> window_;
    size_t shown_ = 0;  // bytes of decode(window_) already returned (or the anchor's)
};

} // namespace pyramid
