#pragma once
// Draws the next token from the logits: repetition penalty, then temperature, top-k, top-p
// (nucleus) and min-p filtering, then a seeded draw. Temperature 0 is greedy (argmax, ties to
// the lower id), which is what the reference comparisons use.
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "generate/sampling_params.h"

namespace pyramid {

class Sampler {
public:
    explicit Sampler(const SamplingParams& params);

    // `history`: the tokens so far (prompt and generated), for the repetition penalty.
    int32_t sample(std::span<const float> logits, std::span<const int32_t> history);

    static int32_t argmax(std::span<const float> logits);

private:
    SamplingParams params_;
    std::mt19937_64 rng_;
};

} // namespace pyramid
