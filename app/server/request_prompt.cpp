#include "request_prompt.h"

#include <algorithm>
#include <string>

#include "api_error.h"
#include "chat/chat_format.h"
#include "util/error.h"

namespace pyramid::server {
namespace {

std::vector<int32_t> chat_tokens(const CompletionRequest& request, const Tokenizer& tok, PromptFormat format)
{
    if (format == PromptFormat::Raw)
        throw ApiError(400, "this server runs the model as a base model (prompt format raw): it has no chat "
                            "format for messages; use /v1/completions, or start the server with --format",
                       "messages");
    try {
        return ChatTemplate(tok, format).conversation(merge_consecutive_messages(request.conversation));
    } catch (const Error& e) {  // a text turn marker in a message
        throw ApiError(400, e.what(), "messages");
    }
}

} // namespace

RequestPrompt request_prompt(const CompletionRequest& request, const Tokenizer& tok, const PromptRules& rules)
{
    RequestPrompt p;
    p.tokens = request.endpoint == Endpoint::Chat ? chat_tokens(request, tok, rules.format)
                                                  : format_raw(tok, request.prompt);
    if (p.tokens.empty())
        throw ApiError(400, "the prompt is empty (and this vocabulary adds no BOS token)", "prompt");
    const int prompt = static_cast<int>(p.tokens.size());
    const int room = rules.context_length - prompt;
    const char* what = request.endpoint == Endpoint::Chat ? "the messages take" : "the prompt takes";
    if (room < 1)
        throw ApiError(400,
                       "this model's context holds " + std::to_string(rules.context_length) + " tokens, but " +
                           what + " " + std::to_string(prompt) + " tokens, leaving no room for a reply",
                       request.endpoint == Endpoint::Chat ? "messages" : "prompt");
    if (request.max_tokens && *request.max_tokens > room)
        throw ApiError(400,
                       "this model's context holds " + std::to_string(rules.context_length) + " tokens, but " +
                           what + " " + std::to_string(prompt) + " and max_tokens asks for " +
                           std::to_string(*request.max_tokens) + " more (" +
                           std::to_string(prompt + static_cast<long long>(*request.max_tokens)) + " in all)",
                       "max_tokens");
    p.max_tokens = request.max_tokens ? *request.max_tokens : std::min(rules.default_max_tokens, room);
    return p;
}

} // namespace pyramid::server
