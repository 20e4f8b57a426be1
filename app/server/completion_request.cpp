#include "completion_request.h"

#include <charconv>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "api_error.h"
#include "kv/compression_presets.h"
#include "util/error.h"
#include "util/json_input.h"

namespace pyramid::server {
namespace {

using nlohmann::json;

[[noreturn]] void refuse(const std::string& param, const std::string& expected, const json& found)
{
    throw ApiError(400, "'" + param + "' must be " + expected + ", not " + json_excerpt(found), param);
}

bool read_bool(const json& body, const char* name, bool fallback)
{
    const auto it = body.find(name);
    if (it == body.end() || it->is_null())
        return fallback;
    if (!it->is_boolean())
        refuse(name, "true or false", *it);
    return it->get<bool>();
}

// A JSON number in [low, high] (inclusive unless `low_open`).
std::optional<double> read_number(const json& body, const char* name, double low, double high, bool low_open = false)
{
    const auto it = body.find(name);
    if (it == body.end() || it->is_null())
        return std::nullopt;
    const std::string range = low_open ? fmt::format("a number above {:g} and at most {:g}", low, high)
                                       : fmt::format("a number from {:g} to {:g}", low, high);
    if (!it->is_number())
        refuse(name, range, *it);
    const double value = it->get<double>();
    if (value < low || value > high || (low_open && value == low))
        refuse(name, range, *it);
    return value;
}

std::optional<int64_t> read_integer(const json& body, const char* name, int64_t low, int64_t high)
{
    const auto it = body.find(name);
    if (it == body.end() || it->is_null())
        return std::nullopt;
    const std::string range = "a whole number from " + std::to_string(low) + " to " + std::to_string(high);
    if (!it->is_number_integer())
        refuse(name, range, *it);
    // Unsigned values past int64's range arrive as number_unsigned.
    if (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(high))
        refuse(name, range, *it);
    const int64_t value = it->get<int64_t>();
    if (value < low || value > high)
        refuse(name, range, *it);
    return value;
}

// A message's content: a string, or OpenAI's array of content parts of which only text
// parts are understood here (an image part asks for a model this server does not run).
std::string read_content(const json& content, const std::string& param)
{
    if (content.is_string())
        return content.get<std::string>();
    if (!content.is_array())
        refuse(param, "a string or an array of text parts", content);
    std::string text;
    for (size_t i = 0; i < content.size(); ++i) {
        const json& part = content[i];
        const std::string at = param + "[" + std::to_string(i) + "]";
        if (!part.is_object() || part.value("type", json()) != "text" || !part.contains("text") ||
            !part["text"].is_string())
            refuse(at, "a text part {\"type\": \"text\", \"text\": \"...\"}", part);
        text += part["text"].get<std::string>();
    }
    return text;
}

Conversation read_messages(const json& body)
{
    const auto it = body.find("messages");
    if (it == body.end())
        throw ApiError(400, "'messages' is required", "messages");
    if (!it->is_array() || it->empty())
        refuse("messages", "a non-empty array of messages", *it);
    Conversation conversation;
    for (size_t i = 0; i < it->size(); ++i) {
        const json& message = (*it)[i];
        const std::string at = "messages[" + std::to_string(i) + "]";
        if (!message.is_object())
            refuse(at, "an object with 'role' and 'content'", message);
        const auto role = message.find("role");
        if (role == message.end() || !role->is_string())
            refuse(at + ".role", "\"system\", \"user\" or \"assistant\"", role == message.end() ? json() : *role);
        const auto content = message.find("content");
        if (content == message.end())
            throw ApiError(400, "'" + at + ".content' is required", at + ".content");
        const std::string text = read_content(*content, at + ".content");
        const std::string name = role->get<std::string>();
        if (name == "system") {
            // The chat formats place one system prompt before the first turn.
            if (!conversation.messages.empty())
                throw ApiError(400, "'" + at + "' is a system message after the conversation began: system "
                                   "messages must come first", at + ".role");
            conversation.system_prompt += (conversation.system_prompt.empty() ? "" : "\n\n") + text;
        } else if (name == "user" || name == "assistant") {
            conversation.messages.push_back({name == "user" ? ChatRole::User : ChatRole::Assistant, text});
        } else {
            refuse(at + ".role", "\"system\", \"user\" or \"assistant\"", *role);
        }
    }
    if (conversation.messages.empty() || conversation.messages.back().role != ChatRole::User)
        throw ApiError(400, "the last message must be the user's: it is the one to answer", "messages");
    return conversation;
}

std::string read_prompt(const json& body)
{
    const auto it = body.find("prompt");
    if (it == body.end())
        throw ApiError(400, "'prompt' is required", "prompt");
    if (it->is_string())
        return it->get<std::string>();
    if (it->is_array() && it->size() == 1 && (*it)[0].is_string())
        return (*it)[0].get<std::string>();
    refuse("prompt", "a string (or an array of one string)", *it);
}

std::vector<std::string> read_stop(const json& body)
{
    const auto it = body.find("stop");
    if (it == body.end() || it->is_null())
        return {};
    const std::string expected = "a non-empty string or an array of up to " + std::to_string(kMaxStopStrings) +
                                 " non-empty strings";
    std::vector<std::string> stop;
    if (it->is_string()) {
        stop.push_back(it->get<std::string>());
    } else if (it->is_array() && it->size() <= kMaxStopStrings) {
        for (const json& s : *it) {
            if (!s.is_string())
                refuse("stop", expected, *it);
            stop.push_back(s.get<std::string>());
        }
    } else {
        refuse("stop", expected, *it);
    }
    for (const std::string& s : stop)
        if (s.empty())
            refuse("stop", expected, *it);
    return stop;
}

std::optional<CompressionConfig> read_pyramid(const json& body)
{
    const auto it = body.find("pyramid");
    if (it == body.end() || it->is_null())
        return std::nullopt;
    const char* expected = "an object with one of 'preset', 'policy' or 'config'";
    if (!it->is_object() || it->size() != 1)
        refuse("pyramid", expected, *it);
    try {
        if (const auto preset = it->find("preset"); preset != it->end() && preset->is_string())
            return compression_preset(preset->get<std::string>());
        if (const auto policy = it->find("policy"); policy != it->end() && policy->is_string()) {
            CompressionConfig config;
            config.policy = parse_policy_kind(policy->get<std::string>());
            return config;
        }
        if (const auto config = it->find("config"); config != it->end() && config->is_object())
            return compression_config_from_json(config->dump());
    } catch (const Error& e) {
        throw ApiError(400, std::string("'pyramid': ") + e.what(), "pyramid");
    }
    refuse("pyramid", expected, *it);
}

// Chat: "logprobs": true and "top_logprobs": n. Text (the legacy API): "logprobs": n.
std::optional<int> read_logprobs(const json& body, Endpoint endpoint)
{
    if (endpoint == Endpoint::Text) {
        if (read_bool(body, "echo", false))
            throw ApiError(400, "'echo' must be false: this server does not score the prompt's tokens", "echo");
        return read_integer(body, "logprobs", 0, kMaxTopLogprobs);
    }
    const bool asked = read_bool(body, "logprobs", false);
    const auto top = read_integer(body, "top_logprobs", 0, kMaxTopLogprobs);
    if (top && !asked)
        throw ApiError(400, "'top_logprobs' needs \"logprobs\": true", "top_logprobs");
    if (!asked)
        return std::nullopt;
    return static_cast<int>(top.value_or(0));
}

std::vector<std::pair<int32_t, float>> read_logit_bias(const json& body)
{
    const auto it = body.find("logit_bias");
    if (it == body.end() || it->is_null())
        return {};
    const std::string expected = "an object of up to " + std::to_string(kMaxLogitBias) +
                                 " token ids (as strings) with biases from -100 to 100";
    if (!it->is_object() || it->size() > kMaxLogitBias)
        refuse("logit_bias", expected, *it);
    std::vector<std::pair<int32_t, float>> bias;
    for (const auto& [key, value] : it->items()) {
        int32_t id = -1;
        const auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), id);
        if (error != std::errc() || end != key.data() + key.size() || id < 0 || !value.is_number() ||
            value.get<double>() < -100 || value.get<double>() > 100)
            refuse("logit_bias", expected, json{{key, value}});
        bias.emplace_back(id, value.get<float>());
    }
    return bias;
}

// What a reply must be a value of: OpenAI's response_format (JSON mode, or structured outputs
// with their schema), llama.cpp's schema beside json_object and its top-level json_schema.
// The schema is read from `text` again, keeping its keys' order (properties are written in it).
std::shared_ptr<const JsonSchema> read_response_format(const json& body, std::string_view text)
{
    const auto ordered = [&] { return nlohmann::ordered_json::parse(text); };  // checked once already
    if (const auto top = body.find("json_schema"); top != body.end() && !top->is_null()) {
        if (body.contains("response_format") && !body["response_format"].is_null())
            throw ApiError(400, "'json_schema' and 'response_format' both ask for a format", "json_schema");
        return response_schema(ordered()["json_schema"], "json_schema");
    }
    const auto it = body.find("response_format");
    if (it == body.end() || it->is_null())
        return nullptr;
    const auto type = it->is_object() ? it->find("type") : it->end();
    const std::string expected =
        "{\"type\": \"text\"}, {\"type\": \"json_object\"} or {\"type\": \"json_schema\", \"json_schema\": "
        "{\"name\": ..., \"schema\": {...}}}";
    if (type != it->end() && *type == "text")
        return nullptr;
    if (type != it->end() && *type == "json_object") {
        if (it->contains("schema"))  // llama.cpp's server
            return response_schema(ordered()["response_format"]["schema"], "response_format.schema");
        return JsonSchema::any_object();
    }
    if (type != it->end() && *type == "json_schema") {
        const auto format = it->find("json_schema");
        if (format == it->end() || !format->is_object())
            refuse("response_format.json_schema", "an object with the schema", format == it->end() ? json() : *format);
        if (!format->contains("schema"))  // OpenAI's schema is optional: then any object
            return JsonSchema::any_object();
        return response_schema(ordered()["response_format"]["json_schema"]["schema"], "response_format.json_schema.schema");
    }
    refuse("response_format", expected, *it);
}

} // namespace

std::shared_ptr<const JsonSchema> response_schema(const nlohmann::ordered_json& schema, const std::string& param)
{
    try {
        return JsonSchema::compile(schema);
    } catch (const Error& e) {
        throw ApiError(400, "'" + param + "': " + e.what(), param);
    }
}

CompletionRequest parse_completion_request(std::string_view text, Endpoint endpoint, const SamplingParams& defaults)
{
    const json body = request_object(text);

    CompletionRequest r;
    r.endpoint = endpoint;
    if (endpoint == Endpoint::Chat)
        r.conversation = read_messages(body);
    else
        r.prompt = read_prompt(body);
    r.stream = read_bool(body, "stream", false);
    if (const auto options = body.find("stream_options"); options != body.end() && !options->is_null()) {
        if (!options->is_object())
            refuse("stream_options", "an object", *options);
        r.include_usage = read_bool(*options, "include_usage", false);
    }
    constexpr int64_t kMaxTokens = std::numeric_limits<int>::max();
    r.max_tokens = read_integer(body, "max_tokens", 1, kMaxTokens);
    if (const auto newer = read_integer(body, "max_completion_tokens", 1, kMaxTokens)) {
        if (r.max_tokens && *r.max_tokens != *newer)
            throw ApiError(400, "'max_tokens' and 'max_completion_tokens' disagree", "max_completion_tokens");
        r.max_tokens = newer;
    }
    if (const auto n = body.find("n"); n != body.end() && !n->is_null() && *n != 1)
        refuse("n", "1 (one choice per request)", *n);
    r.sampling = defaults;
    if (const auto t = read_number(body, "temperature", 0, 2))
        r.sampling.temperature = static_cast<float>(*t);
    if (const auto p = read_number(body, "top_p", 0, 1, true))
        r.sampling.top_p = static_cast<float>(*p);
    if (const auto p = read_number(body, "frequency_penalty", -2, 2))
        r.sampling.frequency_penalty = static_cast<float>(*p);
    if (const auto p = read_number(body, "presence_penalty", -2, 2))
        r.sampling.presence_penalty = static_cast<float>(*p);
    // llama.cpp's server's fields (vLLM spells the penalty repetition_penalty).
    if (const auto k = read_integer(body, "top_k", -1, std::numeric_limits<int>::max()))
        r.sampling.top_k = static_cast<int>(std::max<int64_t>(*k, 0));
    if (const auto p = read_number(body, "min_p", 0, 1))
        r.sampling.min_p = static_cast<float>(*p);
    const auto penalty = read_number(body, "repeat_penalty", 0, 10, true);
    if (const auto other = read_number(body, "repetition_penalty", 0, 10, true)) {
        if (penalty && *penalty != *other)
            throw ApiError(400, "'repeat_penalty' and 'repetition_penalty' disagree", "repetition_penalty");
        r.sampling.repetition_penalty = static_cast<float>(*other);
    } else if (penalty) {
        r.sampling.repetition_penalty = static_cast<float>(*penalty);
    }
    if (const auto n = read_integer(body, "repeat_last_n", 0, 1 << 20))
        r.sampling.repetition_window = static_cast<int>(*n);
    // The sampler's seed 0 means "draw a fresh one": request seeds are shifted by one so that
    // every request seed, 0 included, repeats its run.
    if (const auto seed = read_integer(body, "seed", 0, std::numeric_limits<int64_t>::max() - 1))
        r.sampling.seed = static_cast<uint64_t>(*seed) + 1;
    r.stop = read_stop(body);
    r.compression = read_pyramid(body);
    r.sampling.logit_bias = read_logit_bias(body);
    r.logprobs = read_logprobs(body, endpoint);
    r.json = read_response_format(body, text);
    return r;
}

} // namespace pyramid::server
