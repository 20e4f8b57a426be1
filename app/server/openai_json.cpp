#include "openai_json.h"

namespace pyramid::server {
namespace {

using nlohmann::json;

json envelope(const ReplyIdentity& reply, bool chunk)
{
    const char* object = reply.endpoint == Endpoint::Text ? "text_completion"
                         : chunk                          ? "chat.completion.chunk"
                                                          : "chat.completion";
    return {{"id", reply.id}, {"object", object}, {"created", reply.created}, {"model", reply.model}};
}

json usage_json(const Usage& usage)
{
    return {{"prompt_tokens", usage.prompt_tokens},
            {"completion_tokens", usage.completion_tokens},
            {"total_tokens", usage.prompt_tokens + usage.completion_tokens}};
}

} // namespace

json completion_body(const ReplyIdentity& reply, const std::string& text, const std::string& finish_reason,
                     const Usage& usage)
{
    json body = envelope(reply, false);
    json choice = {{"index", 0}, {"finish_reason", finish_reason}};
    if (reply.endpoint == Endpoint::Chat) {
        choice["message"] = {{"role", "assistant"}, {"content", text}};
    } else {
        choice["text"] = text;
        choice["logprobs"] = nullptr;
    }
    body["choices"] = json::array({choice});
    body["usage"] = usage_json(usage);
    return body;
}

json chunk_body(const ReplyIdentity& reply, const std::string& text, bool first,
                const std::optional<std::string>& finish_reason)
{
    json body = envelope(reply, true);
    json choice = {{"index", 0}, {"finish_reason", finish_reason ? json(*finish_reason) : json(nullptr)}};
    if (reply.endpoint == Endpoint::Chat) {
        json delta = json::object();
        if (first)
            delta["role"] = "assistant";
        if (!text.empty() || !finish_reason)
            delta["content"] = text;
        choice["delta"] = delta;
    } else {
        choice["text"] = text;
        choice["logprobs"] = nullptr;
    }
    body["choices"] = json::array({choice});
    return body;
}

json usage_chunk_body(const ReplyIdentity& reply, const Usage& usage)
{
    json body = envelope(reply, true);
    body["choices"] = json::array();
    body["usage"] = usage_json(usage);
    return body;
}

json models_body(const std::string& model, int64_t created)
{
    return {{"object", "list"},
            {"data", json::array({{{"id", model}, {"object", "model"}, {"created", created}, {"owned_by", "pyramidchat"}}})}};
}

std::string sse_event(const std::string& data) { return "data: " + data + "\n\n"; }

} // namespace pyramid::server
