#pragma once
// Draws the next token from the logits: the logit bias, penalties (repetition, frequency,
// presence) over the recent tokens, then temperature, top-k, top-p
// (nucleus) and min-p filtering, then a seeded draw. Temperature 0 is greedy (argmax, ties to
// the lower id), which is what the reference comparisons use.
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "backend/top_logits.h"
#include "generate/sampling_params.h"

namespace pyramid {

class Sampler {
public:
    // `n_vocab`: the length of a row of logits. Only ids below `n_tokens` (the tokenizer's
    // size; at most n_vocab, which it is when omitted) are ever drawn: an embedding padded past
    // the vocabulary has rows no text decodes to. A top-k limit of n_tokens or more is no limit.
    // Throws pyramid::Error for parameters check_params() refuses.
    Sampler(const SamplingParams& params, int n_vocab, int n_tokens = -1);

    // Throws pyramid::Error naming the parameter out of range (NaN and infinities included);
    // with `n_tokens`, also a biased id outside [0, n_tokens).
    static void check_params(const SamplingParams& params, int n_tokens = -1);

    // `history`: the tokens so far (prompt and generated), for the penalties.
    int32_t sample(std::span<const float> logits, std::span<const int32_t> history);

    static int32_t argmax(std::span<const float> logits);

    // How many of a row's highest logits decide the draw: 1 when greedy, top_k with a top-k
    // limit (each plus the padded ids, which may rank among them), 0 when every logit matters
    // (no limit, a logit bias or a penalty, which can lift tokens from below any fixed top).
    int top_logits_needed() const;
    // sample() from a row's highest logits (at least top_logits_needed() of them, in the
    // order of top_logits.h): the same token, with the same random draw, as sample() on the
    // whole row. Throws pyramid::Error when top_logits_needed() is 0 or too few are given.
    int32_t sample_top(const TopLogits& top);

private:
    // The seeded draw among the survivors of top-k (ids and their logits, highest first):
    // temperature, min-p, top-p.
    int32_t draw(std::span<const int32_t> ids, std::span<const float> values);

    // How many of the highest drawable logits decide the draw (0: all of them).
    int needed_drawable() const;
    // Whether a penalty or a bias changes any logit.
    bool adjusts_logits() const;
    // The bias, then the penalties over the recent tokens of `history`.
    void adjust_logits(std::span<float> scores, std::span<const int32_t> history) const;

    SamplingParams params_;
    int n_vocab_;
    int n_tokens_;
    std::vector<int32_t> drawable_ids_;  // sample_top's survivors, kept to spare an allocation a token
    std::vector<float> drawable_values_;
    std::mt19937_64 rng_;
};

} // namespace pyramid
