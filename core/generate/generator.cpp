#include "generate/generator.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

#include "generate/json_constraint.h"
#include "generate/sampler.h"
#include "tokenizer/text_streamer.h"
#include "util/error.h"

namespace pyramid {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

void fill_cache_stats(const InferenceSession& session, GenerationStats& stats)
{
    stats.layer_kv_lengths = session.cache().lengths();
    stats.layers_compressed = session.layers_compressed();
    stats.full_kv_length = session.next_position();
    stats.kv_bytes = session.cache().bytes();
    // The blocks the allocator hands out for these layers: at most one partly filled a layer.
    stats.kv_block_bytes = 0;
    if (const KvBlockUse blocks = session.state().backend().kv_blocks(); blocks.block_entries > 0)
        for (int length : stats.layer_kv_lengths)
            stats.kv_block_bytes +=
                kv_blocks_for(static_cast<size_t>(length), static_cast<size_t>(blocks.block_entries)) * blocks.block_bytes;
    stats.full_kv_bytes = session.full_cache_bytes();
    stats.context_length = session.context_length();
    stats.positions_used = session.next_position();
    const BackendInfo device = session.backend_info();
    stats.device = device.name + (device.device.empty() ? "" : ": " + device.device);
    stats.device_memory = device.memory;
}

// Runs the session's steps and draws each next token, moving only the highest logits out of
// the backend when they decide the draw (a GPU backend then sends k values, not the vocabulary).
class TokenDrawer {
public:
    // `json`: constrained JSON, or none. It needs whole rows.
    TokenDrawer(InferenceSession& session, const SamplingParams& params, int n_tokens, std::optional<JsonConstraint> json)
        : session_(session), sampler_(params, session.n_vocab(), n_tokens),
          top_k_(json ? 0 : sampler_.top_logits_needed()), json_(std::move(json))
    {
    }

    void run_prompt(std::span<const int32_t> prompt, bool extend_cache, const std::atomic<bool>& cancel)
    {
        if (!extend_cache)
            session_.reset();
        if (top_k_ > 0)
            top_ = session_.extend_top(prompt, top_k_, &cancel);
        else
            logits_ = session_.extend(prompt, &cancel);
    }

    void run_token(int32_t token)
    {
        if (top_k_ > 0)
            top_ = session_.decode_top(token, top_k_);
        else
            logits_ = session_.decode(token);
    }

    // Throws pyramid::Error when constrained JSON finds no token to go on with.
    int32_t draw(std::span<const int32_t> history)
    {
        if (top_k_ > 0)
            return sampler_.sample_top(top_);
        if (json_)
            json_->mask(logits_);
        const int32_t token = sampler_.sample(logits_, history);
        if (json_ && !json_->accept(token))
            throw Error("JSON: no token of the vocabulary continues the reply as the schema asks");
        return token;
    }

    // The JSON value is whole: the reply ends with the last token drawn.
    bool json_complete() const { return json_ && json_->complete(); }

private:
    InferenceSession& session_;
    Sampler sampler_;
    const int top_k_;
    std::optional<JsonConstraint> json_;
    std::vector<float> logits_;
    TopLogits top_;
};

} // namespace

GenerateResult generate(InferenceSession& session, const Tokenizer& tokenizer, std::span<const int32_t> prompt,
                        const GenerateOptions& options, const GenerateCallbacks& callbacks,
                        const std::atomic<bool>& cancel)
{
    GenerateResult result;
    GenerationStats& stats = result.stats;
    stats.prompt_tokens = static_cast<int>(prompt.size());
    const auto publish = [&] {
        fill_cache_stats(session, stats);
        if (callbacks.on_stats)
            callbacks.on_stats(stats);
    };

    const auto start = Clock::now();
    std::optional<JsonConstraint> json;
    if (options.json)
        json.emplace(JsonVocabulary::of(tokenizer), options.json);
    TokenDrawer drawer(session, options.sampling, tokenizer.vocab_size(), std::move(json));
    try {
        drawer.run_prompt(prompt, options.extend_cache, cancel);
    } catch (const Cancelled&) {
        result.reason = FinishReason::Cancelled;
        stats.phase = GenerationPhase::Finished;
        return result;
    }
    stats.prefill_ms = ms_since(start);
    stats.phase = GenerationPhase::Decode;
    publish();

    TextStreamer streamer(tokenizer);
    const size_t looked_back = std::min(options.earlier_tokens.size(),
                                        static_cast<size_t>(std::max(0, options.sampling.repetition_window)));
    std::vector<int32_t> history(options.earlier_tokens.end() - static_cast<ptrdiff_t>(looked_back),
                                 options.earlier_tokens.end());
    history.insert(history.end(), prompt.begin(), prompt.end());
    const auto decode_start = Clock::now();
    result.reason = FinishReason::MaxTokens;
    for (int i = 0; i < options.max_new_tokens; ++i) {
        if (cancel.load()) {
            result.reason = FinishReason::Cancelled;
            break;
        }
        if (session.next_position() >= session.context_length()) {
            if (!options.make_room_when_full) {
                result.reason = FinishReason::ContextFull;
                break;
            }
            result.positions_freed += session.make_room(std::max(1, session.context_length() / 4));
        }
        int32_t token = 0;
        try {
            token = drawer.draw(history);
        } catch (const Error& e) {  // constrained JSON at a dead end: keep what was said
            result.reason = FinishReason::Error;
            result.error = e.what();
            break;
        }
        if (i == 0)
            stats.time_to_first_token_ms = ms_since(start);
        if (options.stop_at_eos && (tokenizer.is_end_of_generation(token) || token == tokenizer.bos_id())) {
            result.reason = FinishReason::EndOfSequence;
            break;
        }
        history.push_back(token);
        result.tokens.push_back(token);
        const std::string text = streamer.put(token);
        result.text += text;
        if (callbacks.on_token)
            callbacks.on_token(token, text);
        ++stats.generated_tokens;

        try {
            drawer.run_token(token);
        } catch (const Error& e) {  // e.g. out of KV memory: end the reply, keep what it said
            result.reason = FinishReason::Error;
            result.error = e.what();
            break;
        }
        if (drawer.json_complete()) {  // fed like every token: a next turn follows it
            result.reason = FinishReason::EndOfSequence;
            break;
        }
        stats.decode_ms = ms_since(decode_start);
        stats.decode_tokens_per_second = stats.generated_tokens / (stats.decode_ms / 1000.0);
        publish();
    }
    const std::string rest = streamer.finish();
    if (!rest.empty()) {
        result.text += rest;
        if (callbacks.on_token)
            callbacks.on_token(-1, rest);
    }
    stats.decode_ms = ms_since(decode_start);
    if (stats.decode_ms > 0)
        stats.decode_tokens_per_second = stats.generated_tokens / (stats.decode_ms / 1000.0);
    stats.phase = GenerationPhase::Finished;
    publish();
    return result;
}

} // namespace pyramid
