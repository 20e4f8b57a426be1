#pragma once
// Measures the two multi-turn modes against each other on one transcript: user turns of
// prompt tokens, each answered by a reference reply fed by teacher forcing (the decode path,
// so generation-phase compression runs as in a chat). Per turn:
//   extend  — the previous turns' compressed cache is kept; only the new turn is prefilled;
//   rebuild — the whole conversation so far is prefilled from an empty cache.
// Reported: the new turn's prompt time (time to first token), KV bytes after the prompt, the
// reply's mean NLL in both modes, and how often their argmax tokens agree along the reply.
#include <cstdint>
#include <vector>

#include "backend/backend.h"
#include "kv/compression_config.h"

namespace pyramid {

struct Transcript {
    std::vector<std::vector<int32_t>> prompts;  // turn t's user tokens (turn 0 starts with BOS)
    std::vector<std::vector<int32_t>> replies;  // turn t's reference reply
};

struct TurnMeasurement {
    int turn = 0;
    int prompt_tokens = 0;            // new tokens of this turn
    int conversation_tokens = 0;      // everything a rebuild prefills
    double extend_prompt_ms = 0, rebuild_prompt_ms = 0;
    size_t extend_kv_bytes = 0, rebuild_kv_bytes = 0, full_kv_bytes = 0;
    double extend_nll = 0, rebuild_nll = 0;
    double argmax_agreement = 0;      // fraction of reply positions whose argmax tokens agree
};

std::vector<TurnMeasurement> measure_multi_turn(Backend& backend, const CompressionConfig& config,
                                                const Transcript& transcript);

// Negative log-likelihood of `token` under `logits` (log-softmax in double).
double token_nll(const std::vector<float>& logits, int32_t token);

} // namespace pyramid
