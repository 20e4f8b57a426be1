#pragma once
// How the next token is drawn from the logits. temperature 0 means greedy.
#include <cstdint>

namespace pyramid {

struct SamplingParams {
    float temperature = 0.8f;
    int top_k = 40;              // 0: off
    float top_p = 0.95f;         // 1: off
    float min_p = 0.05f;         // 0: off
    float repetition_penalty = 1.0f;  // 1: off
    int repetition_window = 64;  // how many recent tokens the penalty looks at
    uint64_t seed = 0;           // 0: a fresh random seed per generation

    bool operator==(const SamplingParams&) const = default;
};

} // namespace pyramid
