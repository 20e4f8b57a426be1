#pragma once
// How the next token is drawn from the logits. temperature 0 means greedy.
#include <cstdint>
#include <utility>
#include <vector>

namespace pyramid {

struct SamplingParams {
    float temperature = 0.8f;
    int top_k = 40;              // 0: off
    float top_p = 0.95f;         // 1: off
    float min_p = 0.05f;         // 0: off
    float repetition_penalty = 1.0f;  // 1: off
    int repetition_window = 64;  // how many recent tokens the penalties look at
    // OpenAI's additive penalties over the same window: a seen token's logit loses
    // frequency_penalty for each time it was seen and presence_penalty once (0: off; negative
    // values favour repeats).
    float frequency_penalty = 0.0f;
    float presence_penalty = 0.0f;
    // Added to these tokens' logits before anything else (OpenAI's logit_bias: -100 all but bans
    // a token, 100 all but forces it). Ids must be below the vocabulary's size.
    std::vector<std::pair<int32_t, float>> logit_bias;
    uint64_t seed = 0;           // 0: a fresh random seed per generation

    bool operator==(const SamplingParams&) const = default;
};

// What a chat samples with unless its user says otherwise (the desktop app, pyramid-cli): the
// defaults above (llama.cpp's) with a repetition penalty of 1.1 over the last 64 tokens, as
// Ollama and LM Studio ship. Without it the default model fell into a loop in 8 of 24 replies
// summarizing a pasted article, with it in 2 (docs/quality/repetition.md). pyramid-server keeps
// the plain defaults: a request to an OpenAI-style API asks for a penalty itself
// (frequency_penalty, presence_penalty, or llama.cpp's repeat_penalty).
inline SamplingParams chat_sampling()
{
    SamplingParams p;
    p.repetition_penalty = 1.1f;
    return p;
}

} // namespace pyramid
