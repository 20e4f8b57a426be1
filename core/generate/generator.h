#pragma once
// The generation loop: prefill the prompt, then sample, stream and decode token by token
// until end of sequence, the token limit, a full context or cancellation. Statistics (per-layer
// cache lengths, bytes, timings) are published after the prefill and after every token.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "generate/finish_reason.h"
#include "generate/generation_stats.h"
#include "generate/inference_session.h"
#include "generate/json_schema.h"
#include "generate/sampling_params.h"
#include "tokenizer/tokenizer.h"

namespace pyramid {

struct GenerateOptions {
    int max_new_tokens = 256;
    SamplingParams sampling;
    // End at EOS, and at a BOS, with which a model trained on texts joined by BOS (llama2.c's
    // story models) starts a new, unrelated text; neither is part of the reply.
    bool stop_at_eos = true;
    // Feed the prompt after what the session's cache already holds (a conversation's next
    // turn) instead of starting afresh.
    bool extend_cache = false;
    // With extend_cache: the tokens fed before, which the repetition penalty looks back on as
    // it would in a prompt holding them. Must outlive the call.
    std::span<const int32_t> earlier_tokens;
    // When the context fills up mid-reply: make room (InferenceSession::make_room, a quarter
    // of the context) and keep going, instead of ending with ContextFull.
    bool make_room_when_full = false;
    // Constrained JSON (json_constraint.h): only tokens that keep the reply a value of this
    // schema are drawn (JsonSchema::any_object(): JSON mode), and the reply ends
    // (EndOfSequence) with the value's last byte. None: free text.
    std::shared_ptr<const JsonSchema> json;
};

struct GenerateCallbacks {
    std::function<void(int32_t token, const std::string& text)> on_token;  // text: the new visible text
    std::function<void(const GenerationStats&)> on_stats;
};

struct GenerateResult {
    FinishReason reason = FinishReason::EndOfSequence;
    // Generated, without the prompt and without EOS. All of them are in the session's cache,
    // so a next turn continues right after the last one.
    std::vector<int32_t> tokens;
    std::string text;
    std::string error;        // reason == Error: what failed mid-reply (the session must be reset)
    int positions_freed = 0;  // by make_room_when_full
    GenerationStats stats;
};

// Throws pyramid::Error for a prompt the session refuses (empty, longer than the context).
GenerateResult generate(InferenceSession& session, const Tokenizer& tokenizer, std::span<const int32_t> prompt,
                        const GenerateOptions& options, const GenerateCallbacks& callbacks,
                        const std::atomic<bool>& cancel);

} // namespace pyramid
