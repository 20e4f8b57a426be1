#pragma once
// The body of Ollama's POST /api/chat or /api/generate, which many local tools speak instead of
// OpenAI's API (Open WebUI, Continue, editor plugins), read into the same CompletionRequest as
// OpenAI's and checked by the same rules (completion_request.h), an error naming Ollama's field:
//
//   /api/chat      messages [{"role": "system"|"user"|"assistant", "content"}]
//   /api/generate  prompt, system; raw: true sends the prompt as plain text (the reply then
//                  continues it), else it is one user message in the model's chat format; an
//                  empty prompt only asks that the model be loaded (it is: done at once)
//   both           stream (default true: lines of JSON), format "json" (JSON mode; a schema is
//                  refused), options {temperature, top_p, top_k, min_p, seed, stop,
//                  repeat_penalty, repeat_last_n, presence_penalty, frequency_penalty,
//                  num_predict (-1 or -2: until the context is full, Ollama's default)}
//
// Ignored as Ollama's clients send them: model (one is served), keep_alive, num_ctx and the
// other options that tune Ollama's own runner. Images and tools are refused, not ignored.
#include <optional>
#include <string_view>

#include "completion_request.h"

namespace pyramid::server {

enum class OllamaRoute { Chat, Generate };

struct OllamaRequest {
    CompletionRequest request;  // its max_tokens: num_predict when positive
    bool load_only = false;     // /api/generate with an empty prompt
};

// Throws ApiError (400) naming Ollama's field (options.temperature, format, ...).
OllamaRequest parse_ollama_request(std::string_view body, OllamaRoute route, const SamplingParams& defaults);

} // namespace pyramid::server
