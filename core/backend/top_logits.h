#pragma once
// A row's highest logits: what a top-k sampler draws from, without the whole vocabulary.
// Ordered highest first, equal logits by the lower token id, so every backend and the full
// row sorted the same way agree entry for entry.
#include <cstdint>
#include <span>
#include <vector>

namespace pyramid {

struct TopLogits {
    std::vector<int32_t> ids;
    std::vector<float> values;  // values[i] is the logit of ids[i]
};

// The k highest of `logits` (all of them when k exceeds the row), in the order above.
TopLogits select_top_logits(std::span<const float> logits, int k);

} // namespace pyramid
