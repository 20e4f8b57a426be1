#pragma once
// The little UTF-8 handling the tokenizers need: walking characters and repairing bytes
// that are not valid UTF-8 before text leaves the engine.
#include <cstddef>
#include <string>
#include <string_view>

namespace pyramid {

// Length in bytes of the valid UTF-8 character at the start of `text` (1-4), or 0 when the
// bytes there are not one (a stray continuation byte, an overlong form, a surrogate, a
// sequence cut short). `text` must not be empty.
size_t utf8_char_length(std::string_view text);

// `text` with every byte that does not begin a valid character replaced by U+FFFD, each
// such byte on its own (as SentencePiece decodes byte pieces that do not form a character).
std::string repair_utf8(std::string_view text);

// Characters (code points) in `text`, counted as the bytes that do not continue one.
size_t utf8_code_points(std::string_view text);

// Appends code point `cp` (at most U+10FFFF) encoded as UTF-8.
void append_utf8(std::string& out, char32_t cp);

} // namespace pyramid
