// A request body from the network (POST /v1/chat/completions and /v1/completions, and Ollama's
// /api/chat and /api/generate): it must be refused with ApiError 400 or accepted, never crash,
// hang or throw anything else. An accepted
// request's stop strings then cut its own text, fed in pieces of the sizes its bytes name, as a
// streamed reply would be: what comes out must be the text up to the stop string that is
// complete first (found here by a plain search of the whole text), whatever the pieces.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <spdlog/spdlog.h>

#include "api_error.h"
#include "completion_request.h"
#include "ollama_request.h"
#include "stop_strings.h"

namespace {

using pyramid::server::Endpoint;
using pyramid::server::OllamaRoute;

// The text before the first stop string to end (of two that end together, the longer), or all
// of it: the contract of StopStrings, computed from the whole text at once.
std::string cut_at_first_stop(std::string_view text, const std::vector<std::string>& stops)
{
    for (size_t end = 1; end <= text.size(); ++end) {
        size_t longest = 0;
        for (const std::string& stop : stops)
            if (stop.size() <= end && stop.size() > longest && text.substr(end - stop.size(), stop.size()) == stop)
                longest = stop.size();
        if (longest > 0)
            return std::string(text.substr(0, end - longest));
    }
    return std::string(text);
}

// `text` through StopStrings in pieces of 1 to 8 bytes, each size taken from a byte of the text.
std::string streamed(std::string_view text, const std::vector<std::string>& stops)
{
    pyramid::server::StopStrings matcher(stops);
    std::string out;
    size_t at = 0;
    while (at < text.size() && !matcher.stopped()) {
        const size_t piece = 1 + static_cast<unsigned char>(text[at]) % 8;
        out += matcher.put(text.substr(at, piece));
        at += piece;
    }
    if (!matcher.stopped())
        out += matcher.finish();
    return out;
}

void check_stops(const pyramid::server::CompletionRequest& request)
{
    if (request.stop.empty())
        return;
    std::string text = request.prompt;
    for (const pyramid::ChatMessage& message : request.conversation.messages)
        text += message.text;
    if (streamed(text, request.stop) != cut_at_first_stop(text, request.stop))
        __builtin_trap();  // a streamed reply that shows other text than the contract says
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const bool quiet = [] {
        spdlog::set_level(spdlog::level::off);
        return true;
    }();
    (void)quiet;
    const std::string_view body(reinterpret_cast<const char*>(data), size);
    for (const Endpoint endpoint : {Endpoint::Chat, Endpoint::Text}) {
        try {
            check_stops(pyramid::server::parse_completion_request(body, endpoint, {}));
        } catch (const pyramid::server::ApiError& e) {
            if (e.status() != 400)
                __builtin_trap();  // a body is the client's fault, never the server's
        }
    }
    for (const OllamaRoute route : {OllamaRoute::Chat, OllamaRoute::Generate}) {
        try {
            check_stops(pyramid::server::parse_ollama_request(body, route, {}).request);
        } catch (const pyramid::server::ApiError& e) {
            if (e.status() != 400)
                __builtin_trap();
        }
    }
    return 0;
}
