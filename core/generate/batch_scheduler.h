#pragma once
// Continuous batching for many independent requests on one backend (the benchmark, a local
// server). Requests wait in a queue; each step() admits waiting requests while the batch and
// the KV memory budget allow (their prompts run together), then decodes one token for every
// running sequence in a single pass through the layers. Sequences leave as soon as they
// finish, and waiting ones take their place at the next step. Each sequence keeps its own
// cache, compression policy and sampler.
//
// When the KV budget cannot hold the next step, the most recently admitted sequence is
// preempted: its cache is dropped and it waits at the head of the queue to run again, its
// prompt and the tokens it already generated fed as one prompt (nothing it produced is lost
// or repeated; a compressing policy then selects over them as over a prompt).
//
// The backend's memory has the last word: before a step runs, each of its sequences reserves
// the room its new entries take (KvLayerStore::reserve, in the backend's blocks). When one
// cannot, the newest running sequence is preempted the same way and the rest go on untouched
// (they generate exactly what they would have); a prompt that does not fit waits, and one that
// could never fit, or the last sequence left still outgrowing the memory, ends alone with
// FinishReason::Error. Any other failure of a step (any exception) ends that step's sequences
// with its message; the scheduler itself goes on.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "generate/finish_reason.h"
#include "generate/batch_step.h"
#include "generate/sequence_state.h"
#include "generate/sampler.h"
#include "generate/json_constraint.h"
#include "generate/sampling_params.h"
#include "generate/token_logprobs.h"
#include "kv/compression_config.h"

namespace pyramid {

struct BatchRequest {
    std::vector<int32_t> prompt;
    int max_new_tokens = 256;
    SamplingParams sampling;
    CompressionConfig compression;
    std::optional<int32_t> eos_token;  // stops the sequence when drawn; none: runs to max_new_tokens
    // Each drawn token's log-probability and those of this many likeliest tokens
    // (token_logprobs.h); none: no log-probabilities. Such a sequence's steps fetch whole rows.
    std::optional<int> likeliest_logprobs;
    // Constrained JSON (json_constraint.h): draws only tokens that keep the reply a value of
    // the constraint's schema (JSON mode: any object), which ends the sequence
    // (FinishReason::EndOfSequence) once whole. Whole rows too; its log-probabilities are
    // those of the tokens it allows.
    std::optional<JsonConstraint> json;
};

struct BatchOptions {
    int max_batch = 32;           // sequences running together
    size_t kv_byte_limit = 0;     // KV bytes of all running sequences together (0: no limit)
    int max_prompt_tokens = 8192;  // prompt tokens admitted in one step (at least one request)
};

// What one step produced for one sequence.
struct BatchEvent {
    int id = 0;
    std::optional<int32_t> token;   // the token drawn this step (absent for a sequence that failed)
    std::optional<TokenLogprobs> logprobs;  // the token's, when the request asked for them
    bool finished = false;
    FinishReason reason = FinishReason::MaxTokens;  // when finished
    std::string error;                              // reason == Error: why
};

struct BatchStepStats {
    int admitted = 0;      // sequences whose prompts ran in this step
    int prompt_tokens = 0;
    int decoded = 0;       // sequences that decoded one token in this step
    int preempted = 0;
    double prompt_seconds = 0;
    double decode_seconds = 0;
};

class BatchScheduler {
public:
    // The backend must outlive the scheduler.
    BatchScheduler(Backend& backend, BatchOptions options);

    // Queues a request; returns its id. Throws pyramid::Error for an empty prompt, a token id
    // outside the vocabulary, a prompt that with max_new_tokens would not fit the context, or
    // more likeliest log-probabilities than the vocabulary has.
    int submit(BatchRequest request);
    // Ends a request (waiting or running) at the next step with FinishReason::Cancelled.
    void cancel(int id);

    // Admits, runs prompts, decodes one token per running sequence. Returns what happened to
    // every sequence that ran, in id order.
    std::vector<BatchEvent> step();

    bool idle() const { return running_.empty() && waiting_.empty(); }
    int running() const { return static_cast<int>(running_.size()); }
    int waiting() const { return static_cast<int>(waiting_.size()); }
    int preemptions() const { return preemptions_; }
    const BatchStepStats& last_step() const { return last_step_; }
    // KV bytes all running sequences hold now, and per layer the entries they hold together.
    size_t kv_bytes() const;
    // The bytes full caches would hold for the same sequences' positions: kv_bytes() over
    // this is what compression saves (equal under the full policy).
    size_t full_kv_bytes() const;
    std::vector<int> layer_lengths() const;
    // Tokens a request generated so far (also once it finished, until the next step).
    std::span<const int32_t> generated(int id) const;

private:
    struct Sequence {
        int id = 0;
        std::vector<int32_t> tokens;  // the prompt, then what was generated
        size_t prompt_length = 0;
        BatchRequest request;  // its prompt moved into `tokens`
        std::unique_ptr<SequenceState> state;
        Sampler sampler;
        // After the last token fed, to draw the next one from: the whole row, or only its
        // highest logits when every sampler of that step's batch needed no more.
        std::vector<float> logits;
        TopLogits top;
        bool cancelled = false;

        Sequence(int id, BatchRequest request, int n_vocab);
        std::span<const int32_t> generated() const { return std::span(tokens).subspan(prompt_length); }
        int32_t draw_next() { return logits.empty() ? sampler.sample_top(top) : sampler.sample(logits, tokens); }
    };
    using SequencePtr = std::unique_ptr<Sequence>;

    // Runs `step` (prompts or decode tokens) for these sequences, fetching only the highest
    // logits when all their samplers allow it, and leaves each one's outputs in it.
    template <typename Sequences, typename Full, typename Top>
    static void run_and_store(const Sequences& sequences, Full full_step, Top top_step);

    void admit(std::vector<BatchEvent>& events);
    void make_room_for_decode();
    void preempt(SequencePtr sequence);
    void finish(SequencePtr sequence, FinishReason reason, std::string error, std::vector<BatchEvent>& events);
    bool fits(size_t more_bytes) const;

    Backend& backend_;
    BatchOptions options_;
    BatchStep step_;  // every step's buffers, reused
    int next_id_ = 1;
    std::deque<SequencePtr> waiting_;
    std::vector<SequencePtr> running_;  // in admission order
    std::vector<SequencePtr> finished_;  // kept until the next step so generated() can read them
    int preemptions_ = 0;
    BatchStepStats last_step_;
};

} // namespace pyramid
