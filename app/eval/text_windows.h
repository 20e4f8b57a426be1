#pragma once
// How the perplexity protocol cuts a text file into evaluation windows.
//
// Every window holds P + C tokens: the first P are the prefill, the last C are scored. It
// starts with BOS where the model adds one (tokenizer.add_bos(); not SmolLM2, whose BOS is
// a chat control token), followed by text tokens. Windows never overlap and follow each other
// through the text, and the first `count` of them are used. Three ways to place them:
//   Tokens      the text is tokenized once and cut into consecutive pieces (WikiText).
//   Paragraphs  a window starts at a paragraph (text after a blank line or at the top of the
//               file), optionally only one whose text begins with `paragraph_prefix`; it is
//               tokenized from there as a fresh document, with SentencePiece's dummy prefix,
//               the way each training story was. The window runs on through the following
//               paragraphs unchanged, and the next one starts at the first eligible paragraph
//               after the one this window ended in. TinyStories files separate stories by a
//               blank line but also contain blank lines inside stories, so the prefix
//               "Once upon a time" is how story starts are told apart there.
//   LlamaCpp    exactly as llama.cpp's llama-perplexity -c N windows text: the whole file
//               tokenized once (BOS in front where the model adds one), cut into consecutive
//               chunks of N = P + C tokens, each chunk's first token replaced by BOS where the
//               model adds one; with P = N/2 + 1 the scored tokens are N/2 + 1 .. N - 1, the
//               ones llama-perplexity scores.
#include <cstdint>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace pyramid {

enum class WindowAlign { Tokens, Paragraphs, LlamaCpp };

struct WindowOptions {
    int prefill = 256;       // P
    int continuation = 128;  // C
    int count = 32;
    WindowAlign align = WindowAlign::Tokens;
    std::string paragraph_prefix;  // Paragraphs only; empty: every paragraph may start a window
};

// Throws pyramid::Error when the sizes are not positive, or the text holds fewer than
// `count` windows (the message says how many it holds).
std::vector<std::vector<int32_t>> make_windows(const std::string& text, const Tokenizer& tokenizer,
                                               const WindowOptions& options);

// Offsets of the paragraphs' first characters, in order.
std::vector<size_t> paragraph_starts(const std::string& text);

std::string to_string(WindowAlign align);
WindowAlign parse_window_align(const std::string& text);  // "tokens", "paragraphs" or "llama.cpp"; throws

} // namespace pyramid
