#pragma once
// llama.cpp's server's token routes, which clients written for it (SillyTavern, scripts that
// count tokens before they send) call:
//
//   POST /tokenize    {"content": "text", "add_special": false, "with_pieces": false}
//                     -> {"tokens": [ids]}, or with pieces [{"id", "piece"}]: the piece is the
//                     token's text as valid UTF-8 (U+FFFD for part of a character)
//   POST /detokenize  {"tokens": [ids]} -> {"content": "text"}
//
// The text is tokenized as plain text, as a prompt's messages are: a control token's spelling
// stays text (tokenizer.h). add_special puts BOS first where the model's prompts start with it.
// A field of the wrong type, or an id outside the vocabulary, is an ApiError 400 naming it.
#include <string_view>

#include <nlohmann/json.hpp>

#include "tokenizer/tokenizer.h"

namespace pyramid::server {

nlohmann::json tokenize_body(std::string_view request, const Tokenizer& tokenizer);
nlohmann::json detokenize_body(std::string_view request, const Tokenizer& tokenizer);

} // namespace pyramid::server
