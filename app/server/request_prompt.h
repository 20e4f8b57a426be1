#pragma once
// A checked request turned into what the batch scheduler runs: the prompt's tokens in the
// model's chat format (chat) or as plain text after BOS (text completions), and how many tokens
// the reply may have.
//
// A prompt that leaves no room in the model's context, or a max_tokens that would run past
// it, is refused with a 400 naming the lengths, as OpenAI refuses it; nothing is cut from a
// prompt to make it fit. Without max_tokens a reply may have `default_max_tokens`, or the
// room the context has left when that is less (it then ends with finish_reason "length").
#include <cstdint>
#include <vector>

#include "chat/prompt_format.h"
#include "completion_request.h"
#include "tokenizer/tokenizer.h"

namespace pyramid::server {

struct PromptRules {
    PromptFormat format = PromptFormat::Raw;  // chat requests; Raw refuses them
    int context_length = 0;
    int default_max_tokens = 256;
};

struct RequestPrompt {
    std::vector<int32_t> tokens;
    int max_tokens = 0;
};

// Throws ApiError (400). `tok` and the rules are read only: safe from any number of threads.
RequestPrompt request_prompt(const CompletionRequest& request, const Tokenizer& tok, const PromptRules& rules);

} // namespace pyramid::server
