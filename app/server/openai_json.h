#pragma once
// The JSON shapes of OpenAI's API that this server answers with, field for field as OpenAI's
// client libraries read them:
//
//   chat.completion        {"id", "object", "created", "model", "choices": [{"index": 0,
//                           "message": {"role": "assistant", "content"}, "finish_reason"}],
//                           "usage": {"prompt_tokens", "completion_tokens", "total_tokens"}}
//   chat.completion.chunk  the same with "delta" (the first chunk's holds the role) instead of
//                          "message", no usage; a last chunk with empty choices and the usage
//                          when the request asked for stream_options.include_usage
//   text_completion        "choices": [{"index": 0, "text", "logprobs": null, "finish_reason"}],
//                          streamed in chunks of the same object type
//   list of models         {"object": "list", "data": [{"id", "object": "model", "created", "owned_by"}]}
//
// A choice's "logprobs" is null unless the request asked for them; then, for chat,
//   {"content": [{"token", "logprob", "bytes", "top_logprobs": [{"token", "logprob", "bytes"}]}]}
// and for text (the legacy shape)
//   {"tokens": [...], "token_logprobs": [...], "top_logprobs": [{token: logprob}], "text_offset": [...]}
// "token" is the token's bytes as valid UTF-8 (U+FFFD for part of a character), "bytes" the
// exact bytes; a log-probability of minus infinity is written -9999.0, as OpenAI writes one.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "completion_request.h"
#include "reply_channel.h"

namespace pyramid::server {

// Whose API a reply answers in: OpenAI's, or Ollama's chat or generate (ollama_json.h).
enum class ReplyShape { OpenAI, OllamaChat, OllamaGenerate };

// What every response and chunk of one reply repeats.
struct ReplyIdentity {
    Endpoint endpoint = Endpoint::Chat;
    std::string id;       // "chatcmpl-..." or "cmpl-..."
    int64_t created = 0;  // Unix seconds
    std::string model;
    ReplyShape shape = ReplyShape::OpenAI;
};

struct Usage {
    int prompt_tokens = 0;
    int completion_tokens = 0;
};

// `logprobs`: logprobs_body()'s, or null when the request did not ask.
nlohmann::json completion_body(const ReplyIdentity& reply, const std::string& text, const std::string& finish_reason,
                               const Usage& usage, const nlohmann::json& logprobs = nullptr);
// One streamed chunk: `text` (and, with `first`, the chat role), the log-probabilities of its
// tokens (null when not asked) and, on the last one, the finish reason.
nlohmann::json chunk_body(const ReplyIdentity& reply, const std::string& text, bool first,
                          const std::optional<std::string>& finish_reason, const nlohmann::json& logprobs = nullptr);
// A choice's "logprobs" for these tokens. The text shape's "text_offset" counts characters
// (UTF-8 lead bytes) of the reply from `offset`, which moves past the tokens.
nlohmann::json logprobs_body(Endpoint endpoint, const std::vector<ReplyToken>& tokens, size_t& offset);
nlohmann::json usage_chunk_body(const ReplyIdentity& reply, const Usage& usage);
nlohmann::json models_body(const std::string& model, int64_t created);

// One server-sent event carrying `data` ("data: ...\n\n").
std::string sse_event(const std::string& data);

} // namespace pyramid::server
