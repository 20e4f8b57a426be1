#pragma once
// The body of POST /v1/chat/completions or /v1/completions, read and checked field by field
// as OpenAI's API documents them. What is read:
//
//   messages      chat: [{"role": "system"|"user"|"assistant", "content": "..." or
//                 [{"type": "text", "text": "..."}, ...]}, ...]; system messages come first,
//                 the last message is the user's
//   prompt        text: a string (or an array holding one string)
//   stream        bool: server-sent events
//   max_tokens    integer >= 1 (max_completion_tokens is the same field's newer name)
//   temperature   number 0..2 (0: greedy)     top_p  number in (0, 1]
//   frequency_penalty, presence_penalty   numbers -2..2 (sampling_params.h)
//   logit_bias    {"token id": bias -100..100}, up to kMaxLogitBias tokens (ids checked against
//                 the vocabulary by the caller, who knows it)
//   top_k, min_p, repeat_penalty (or repetition_penalty), repeat_last_n   as llama.cpp's server
//                 reads them: top_k >= -1 (0 or -1: off), min_p 0..1, penalty in (0, 10],
//                 window 0..2^20 tokens
//   stop          a string or up to 16 non-empty strings    seed  integer >= 0
//   n             1 only                       stream_options.include_usage  bool
//   logprobs      chat: bool, with top_logprobs 0..20 (logprobs true only); text: 0..20, the
//                 likeliest tokens to report beside each token's log-probability
//   echo          text: false only (the prompt's log-probabilities are not computed)
//   response_format  {"type": "text"}; {"type": "json_object"} (JSON mode: the reply is one
//                 JSON object, json_constraint.h); {"type": "json_schema", "json_schema":
//                 {"name": ..., "schema": {...}}} (structured outputs: the reply is a value of
//                 the schema, json_schema.h says which keywords hold; others are a 400).
//                 llama.cpp's spellings too: {"type": "json_object", "schema": {...}}, and a
//                 top-level "json_schema": {...}
//   pyramid       PyramidChat's extension: {"preset": NAME} | {"policy": NAME} |
//                 {"config": {...}} (a compression config as --config reads it), the KV-cache
//                 compression of this request instead of the server's
//
// Any other field is ignored, as OpenAI's clients send fields a local server does not know
// (model, user, logit_bias, ...). A field of the wrong type or out of range is an ApiError 400
// naming it; so is a body that is not a JSON object (with the parser's message).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <memory>

#include <nlohmann/json_fwd.hpp>

#include "chat/chat_message.h"
#include "generate/json_schema.h"
#include "generate/sampling_params.h"
#include "kv/compression_config.h"

namespace pyramid::server {

enum class Endpoint { Chat, Text };

// OpenAI allows 4; clients written for llama.cpp's server (chat front ends) send more.
inline constexpr int kMaxStopStrings = 16;

struct CompletionRequest {
    Endpoint endpoint = Endpoint::Chat;
    Conversation conversation;  // chat: the system prompt and the messages, in order
    std::string prompt;         // text
    bool stream = false;
    bool include_usage = false;  // streamed: a last chunk with the usage
    std::optional<int> max_tokens;
    SamplingParams sampling;     // the server's defaults with the request's fields applied
    std::vector<std::string> stop;
    std::optional<CompressionConfig> compression;  // the request's "pyramid" field
    // Each token's log-probability with this many of the likeliest; none: not asked for.
    std::optional<int> logprobs;
    // response_format: the schema a reply is a value of (JSON mode: any object); none: text.
    std::shared_ptr<const JsonSchema> json;
};

inline constexpr int kMaxTopLogprobs = 20;  // as OpenAI allows for chat
inline constexpr size_t kMaxLogitBias = 1024;

// A schema a request gives (`param` names where), read for constrained decoding; ApiError 400
// naming `param` and the place in the schema when it asks for what json_schema.h does not hold.
std::shared_ptr<const JsonSchema> response_schema(const nlohmann::ordered_json& schema, const std::string& param);

// Throws ApiError (400) as described above. `defaults`: sampling for fields the request
// leaves out.
CompletionRequest parse_completion_request(std::string_view body, Endpoint endpoint, const SamplingParams& defaults);

} // namespace pyramid::server
