#include "openai_json.h"

#include <cmath>

#include "util/utf8.h"

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

json logprob_json(float logprob)
{
    return std::isfinite(logprob) ? json(logprob) : json(-9999.0);
}

json bytes_json(const std::string& bytes)
{
    json list = json::array();
    for (const char c : bytes)
        list.push_back(static_cast<uint8_t>(c));
    return list;
}

json chat_token(const ReplyToken& token)
{
    return {{"token", repair_utf8(token.bytes)}, {"logprob", logprob_json(token.logprob)}, {"bytes", bytes_json(token.bytes)}};
}

json usage_json(const Usage& usage)
{
    return {{"prompt_tokens", usage.prompt_tokens},
            {"completion_tokens", usage.completion_tokens},
            {"total_tokens", usage.prompt_tokens + usage.completion_tokens}};
}

} // namespace

json logprobs_body(Endpoint endpoint, const std::vector<ReplyToken>& tokens, size_t& offset)
{
    if (endpoint == Endpoint::Chat) {
        json content = json::array();
        for (const ReplyToken& t : tokens) {
            json entry = chat_token(t);
            entry["top_logprobs"] = json::array();
            for (const ReplyToken& top : t.likeliest)
                entry["top_logprobs"].push_back(chat_token(top));
            content.push_back(std::move(entry));
        }
        return {{"content", std::move(content)}};
    }
    json text = {{"tokens", json::array()}, {"token_logprobs", json::array()}, {"top_logprobs", json::array()},
                 {"text_offset", json::array()}};
    for (const ReplyToken& t : tokens) {
        text["tokens"].push_back(repair_utf8(t.bytes));
        text["token_logprobs"].push_back(logprob_json(t.logprob));
        json top = json::object();
        for (const ReplyToken& other : t.likeliest)  // two tokens that read alike: the likelier
            top.emplace(repair_utf8(other.bytes), logprob_json(other.logprob));
        text["top_logprobs"].push_back(std::move(top));
        text["text_offset"].push_back(offset);
        offset += utf8_code_points(t.bytes);
    }
    return text;
}

json completion_body(const ReplyIdentity& reply, const std::string& text, const std::string& finish_reason,
                     const Usage& usage, const json& logprobs)
{
    json body = envelope(reply, false);
    json choice = {{"index", 0}, {"finish_reason", finish_reason}, {"logprobs", logprobs}};
    if (reply.endpoint == Endpoint::Chat)
        choice["message"] = {{"role", "assistant"}, {"content", text}};
    else
        choice["text"] = text;
    body["choices"] = json::array({choice});
    body["usage"] = usage_json(usage);
    return body;
}

json chunk_body(const ReplyIdentity& reply, const std::string& text, bool first,
                const std::optional<std::string>& finish_reason, const json& logprobs)
{
    json body = envelope(reply, true);
    json choice = {{"index", 0},
                   {"finish_reason", finish_reason ? json(*finish_reason) : json(nullptr)},
                   {"logprobs", logprobs}};
    if (reply.endpoint == Endpoint::Chat) {
        json delta = json::object();
        if (first)
            delta["role"] = "assistant";
        if (!text.empty() || !finish_reason)
            delta["content"] = text;
        choice["delta"] = delta;
    } else {
        choice["text"] = text;
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
