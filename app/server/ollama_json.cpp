#include "ollama_json.h"

#include <ctime>

#include <fmt/chrono.h>
#include <fmt/format.h>

namespace pyramid::server {
namespace {

using nlohmann::json;

json head(const ReplyIdentity& reply, const std::string& text, bool done)
{
    json body = {{"model", reply.model}, {"created_at", rfc3339_now()}, {"done", done}};
    if (reply.shape == ReplyShape::OllamaChat)
        body["message"] = {{"role", "assistant"}, {"content", text}};
    else
        body["response"] = text;
    return body;
}

json details()
{
    return {{"format", "gguf"}, {"family", "llama"}, {"families", json::array({"llama"})}};
}

} // namespace

json ollama_piece(const ReplyIdentity& reply, const std::string& text) { return head(reply, text, false); }

json ollama_end(const ReplyIdentity& reply, const std::string& text, const std::string& done_reason, const Usage& usage,
                const ReplyTimes& times)
{
    json body = head(reply, text, true);
    body["done_reason"] = done_reason;
    body["total_duration"] = times.total.count();
    body["load_duration"] = 0;
    body["prompt_eval_count"] = usage.prompt_tokens;
    body["prompt_eval_duration"] = times.prompt.count();
    body["eval_count"] = usage.completion_tokens;
    body["eval_duration"] = times.reply.count();
    return body;
}

json ollama_loaded(const ReplyIdentity& reply)
{
    json body = head(reply, "", true);
    body["done_reason"] = "load";
    return body;
}

json ollama_error(const std::string& message) { return {{"error", message}}; }

json ollama_tags(const ApiSettings& settings)
{
    return {{"models", json::array({{{"name", settings.model_id},
                                     {"model", settings.model_id},
                                     {"modified_at", rfc3339(settings.created)},
                                     {"size", settings.model_bytes},
                                     {"digest", ""},
                                     {"details", details()}}})}};
}

json ollama_show(const ApiSettings& settings)
{
    return {{"modelfile", ""},
            {"parameters", ""},
            {"template", ""},
            {"details", details()},
            {"model_info",
             {{"general.architecture", "llama"}, {"llama.context_length", settings.prompt.context_length}}},
            {"capabilities", json::array({"completion"})}};
}

std::string rfc3339(int64_t unix_seconds)
{
    std::tm utc{};
    const std::time_t t = static_cast<std::time_t>(unix_seconds);
    gmtime_r(&t, &utc);
    return fmt::format("{:%Y-%m-%dT%H:%M:%S}Z", utc);
}

std::string rfc3339_now()
{
    const auto now = std::chrono::system_clock::now();
    const auto seconds = std::chrono::floor<std::chrono::seconds>(now);
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now - seconds).count();
    std::string text = rfc3339(std::chrono::system_clock::to_time_t(seconds));
    text.insert(text.size() - 1, fmt::format(".{:06d}", micros));
    return text;
}

} // namespace pyramid::server
