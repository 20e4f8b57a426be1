#pragma once
// The JSON shapes of Ollama's API that this server answers with, as Ollama's clients read them:
//
//   /api/chat      {"model", "created_at", "message": {"role": "assistant", "content"}, "done"}
//   /api/generate  the same with "response" instead of "message"
//   streamed, one such object per line (application/x-ndjson), the last with "done": true,
//   "done_reason" ("stop", "length") and the counts and times: total_duration,
//   prompt_eval_count, prompt_eval_duration, eval_count, eval_duration (nanoseconds)
//   an error       {"error": "message"}
//   /api/tags      {"models": [{"name", "model", "modified_at", "size", "digest", "details"}]}
//   /api/show      {"details", "model_info", "capabilities": ["completion"], ...}
//   /api/version   {"version"}
#include <chrono>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "api_settings.h"
#include "openai_json.h"

namespace pyramid::server {

// How long a reply took, as its last object reports it.
struct ReplyTimes {
    std::chrono::nanoseconds total{0};
    std::chrono::nanoseconds prompt{0};  // until the first text
    std::chrono::nanoseconds reply{0};   // from the first text on
};

// One piece of a streamed reply (done: false).
nlohmann::json ollama_piece(const ReplyIdentity& reply, const std::string& text);
// The last object: `text` (all of it when not streamed, the rest when streamed), done.
nlohmann::json ollama_end(const ReplyIdentity& reply, const std::string& text, const std::string& done_reason,
                          const Usage& usage, const ReplyTimes& times);
// /api/generate with an empty prompt: the model is loaded.
nlohmann::json ollama_loaded(const ReplyIdentity& reply);
nlohmann::json ollama_error(const std::string& message);
nlohmann::json ollama_tags(const ApiSettings& settings);
nlohmann::json ollama_show(const ApiSettings& settings);

// Unix seconds as RFC 3339 in UTC ("2026-12-07T16:40:00Z"); now with microseconds.
std::string rfc3339(int64_t unix_seconds);
std::string rfc3339_now();

} // namespace pyramid::server
