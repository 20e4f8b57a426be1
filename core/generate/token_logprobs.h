#pragma once
// The log-probabilities OpenAI's API reports with a generated token: the drawn token's and
// those of the likeliest tokens at its position. They are the model's own distribution, the
// softmax of the raw logits (as llama.cpp's and vLLM's servers report by default), not the
// distribution after the sampler's penalties, temperature and filters: so the numbers mean
// the same whatever a request sampled with, and greedy decoding's token is always the first
// of the likeliest. (A row JSON mode masked gives the distribution among the tokens it allows.)
#include <cstdint>
#include <span>
#include <vector>

namespace pyramid {

struct TokenLogprob {
    int32_t id = 0;
    float logprob = 0;  // natural log; -inf for a token with no chance (a -inf or NaN logit)
};

struct TokenLogprobs {
    TokenLogprob drawn;
    std::vector<TokenLogprob> likeliest;  // highest first, ties to the lower id (top_logits.h)
};

// `logits`: a whole row. `drawn` in range; `likeliest`: how many of the top tokens to report
// (at most the row's length). Computed in double, so a row's probabilities sum to 1 within
// float rounding.
TokenLogprobs token_logprobs(std::span<const float> logits, int32_t drawn, int likeliest);

} // namespace pyramid
