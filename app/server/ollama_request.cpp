#include "ollama_request.h"

#include <array>
#include <utility>

#include "api_error.h"
#include "util/json_input.h"

namespace pyramid::server {
namespace {

using nlohmann::json;

// Ollama's options as OpenAI's fields (the same checks), and back for messages.
constexpr std::array<std::pair<const char*, const char*>, 10> kOptions{{{"temperature", "temperature"},
                                                                         {"top_p", "top_p"},
                                                                         {"top_k", "top_k"},
                                                                         {"min_p", "min_p"},
                                                                         {"stop", "stop"},
                                                                         {"repeat_penalty", "repeat_penalty"},
                                                                         {"repeat_last_n", "repeat_last_n"},
                                                                         {"presence_penalty", "presence_penalty"},
                                                                         {"frequency_penalty", "frequency_penalty"},
                                                                         {"num_predict", "max_tokens"}}};

// An ApiError of the OpenAI reader, said with Ollama's name for the field.
ApiError in_ollama_terms(const ApiError& e)
{
    std::string ollama_name;
    for (const auto& [option, openai] : kOptions)
        if (e.param() == openai)
            ollama_name = std::string("options.") + option;
    if (e.param() == "seed")
        ollama_name = "options.seed";
    if (e.param() == "response_format")
        ollama_name = "format";
    if (ollama_name.empty())
        return e;
    std::string message = e.what();
    if (const size_t at = message.find("'" + e.param() + "'"); at != std::string::npos)
        message.replace(at + 1, e.param().size(), ollama_name);
    return ApiError(e.status(), message, ollama_name);
}

void refuse_images(const json& holder, const std::string& at)
{
    if (const auto images = holder.find("images"); images != holder.end() && !images->is_null() &&
                                                  !(images->is_array() && images->empty()))
        throw ApiError(400, "'" + at + "images': this server runs a text model; it reads no images", at + "images");
}

} // namespace

OllamaRequest parse_ollama_request(std::string_view text, OllamaRoute route, const SamplingParams& defaults)
{
    const json body = request_object(text);
    json openai = json::object();
    Endpoint endpoint = Endpoint::Chat;
    OllamaRequest out;
    if (const auto tools = body.find("tools"); tools != body.end() && !tools->is_null() && !tools->empty())
        throw ApiError(400, "'tools': this server does not call tools", "tools");
    if (route == OllamaRoute::Chat) {
        const auto messages = body.find("messages");
        if (messages == body.end())
            throw ApiError(400, "'messages' is required", "messages");
        if (messages->is_array())
            for (size_t i = 0; i < messages->size(); ++i)
                if ((*messages)[i].is_object())
                    refuse_images((*messages)[i], "messages[" + std::to_string(i) + "].");
        openai["messages"] = *messages;
    } else {
        refuse_images(body, "");
        const json prompt = body.value("prompt", json(""));
        if (!prompt.is_string())
            throw ApiError(400, "'prompt' must be a string, not " + json_excerpt(prompt), "prompt");
        const json system = body.value("system", json(""));
        if (!system.is_string())
            throw ApiError(400, "'system' must be a string, not " + json_excerpt(system), "system");
        const json raw = body.value("raw", json(false));
        if (!raw.is_boolean())
            throw ApiError(400, "'raw' must be true or false, not " + json_excerpt(raw), "raw");
        if (prompt.get<std::string>().empty()) {
            out.load_only = true;  // Ollama's way to load a model ahead of use
            openai["prompt"] = "";
        } else if (raw.get<bool>()) {
            endpoint = Endpoint::Text;
            openai["prompt"] = prompt;
        } else {
            openai["messages"] = json::array();
            if (!system.get<std::string>().empty())
                openai["messages"].push_back({{"role", "system"}, {"content", system}});
            openai["messages"].push_back({{"role", "user"}, {"content", prompt}});
        }
    }
    openai["stream"] = body.contains("stream") ? body["stream"] : json(true);  // Ollama streams unless told
    // "json" (JSON mode) or a JSON schema (structured outputs), read after the rest.
    const auto format = body.find("format");
    const bool schema = format != body.end() && format->is_object();
    if (format != body.end() && !format->is_null() && *format != "" && !schema) {
        if (*format != "json")
            throw ApiError(400, "'format' must be \"json\" or a JSON schema, not " + json_excerpt(*format), "format");
        openai["response_format"] = {{"type", "json_object"}};
    }
    if (const auto options = body.find("options"); options != body.end() && !options->is_null()) {
        if (!options->is_object())
            throw ApiError(400, "'options' must be an object, not " + json_excerpt(*options), "options");
        for (const auto& [option, name] : kOptions)
            if (const auto value = options->find(option); value != options->end())
                openai[name] = *value;
        // -1 (Ollama's default) and -2: until the context is full, which the caller works out.
        if (const auto n = openai.find("max_tokens"); n != openai.end() && (*n == -1 || *n == -2))
            openai.erase(n);
        // A negative seed asks for a random one, as llama.cpp's -1.
        if (const auto seed = options->find("seed"); seed != options->end()) {
            if (!seed->is_number_integer() || seed->get<int64_t>() >= 0)
                openai["seed"] = *seed;
        }
    }
    if (out.load_only)
        return out;
    try {
        out.request = parse_completion_request(openai.dump(), endpoint, defaults);
    } catch (const ApiError& e) {
        throw in_ollama_terms(e);
    }
    if (schema)  // from the text again, keeping the order of its keys
        out.request.json = response_schema(nlohmann::ordered_json::parse(text)["format"], "format");
    return out;
}

} // namespace pyramid::server
