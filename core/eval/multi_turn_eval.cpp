#include "eval/multi_turn_eval.h"

#include <chrono>
#include <cmath>

#include "generate/inference_session.h"
#include "generate/sampler.h"
#include "util/error.h"

namespace pyramid {
namespace {

using Clock = std::chrono::steady_clock;

struct ReplyScore {
    double nll = 0;
    std::vector<int32_t> argmax;
};

// Teacher-forces `reply` after a prompt whose last logits are `logits`.
ReplyScore score_reply(InferenceSession& session, std::vector<float> logits, const std::vector<int32_t>& reply)
{
    ReplyScore s;
    for (int32_t token : reply) {
        s.nll += token_nll(logits, token);
        s.argmax.push_back(Sampler::argmax(logits));
        logits = session.decode(token);
    }
    s.nll /= static_cast<double>(reply.size());
    return s;
}

double elapsed_ms(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

} // namespace

double token_nll(const std::vector<float>& logits, int32_t token)
{
    double max = logits[0];
    for (float v : logits)
        max = std::max(max, static_cast<double>(v));
    double sum = 0;
    for (float v : logits)
        sum += std::exp(v - max);
    return std::log(sum) + max - logits[static_cast<size_t>(token)];
}

std::vector<TurnMeasurement> measure_multi_turn(Backend& backend, const CompressionConfig& config,
                                                const Transcript& transcript)
{
    if (transcript.prompts.size() != transcript.replies.size() || transcript.prompts.empty())
        throw Error("a transcript needs one reply per prompt");
    InferenceSession extended(backend, config);
    InferenceSession rebuilt(backend, config);
    std::vector<int32_t> conversation;
    std::vector<TurnMeasurement> out;
    for (size_t t = 0; t < transcript.prompts.size(); ++t) {
        const auto& prompt = transcript.prompts[t];
        const auto& reply = transcript.replies[t];
        if (reply.empty())
            throw Error("turn " + std::to_string(t) + " has an empty reply");
        TurnMeasurement m;
        m.turn = static_cast<int>(t);
        m.prompt_tokens = static_cast<int>(prompt.size());
        conversation.insert(conversation.end(), prompt.begin(), prompt.end());
        m.conversation_tokens = static_cast<int>(conversation.size());

        auto start = Clock::now();
        std::vector<float> extend_logits = t == 0 ? extended.prefill(prompt) : extended.extend(prompt);
        m.extend_prompt_ms = elapsed_ms(start);
        m.extend_kv_bytes = extended.cache().bytes();
        m.full_kv_bytes = extended.full_cache_bytes();

        start = Clock::now();
        std::vector<float> rebuild_logits = rebuilt.prefill(conversation);
        m.rebuild_prompt_ms = elapsed_ms(start);
        m.rebuild_kv_bytes = rebuilt.cache().bytes();

        const ReplyScore e = score_reply(extended, std::move(extend_logits), reply);
        const ReplyScore r = score_reply(rebuilt, std::move(rebuild_logits), reply);
        m.extend_nll = e.nll;
        m.rebuild_nll = r.nll;
        int agree = 0;
        for (size_t i = 0; i < reply.size(); ++i)
            agree += e.argmax[i] == r.argmax[i];
        m.argmax_agreement = static_cast<double>(agree) / static_cast<double>(reply.size());
        conversation.insert(conversation.end(), reply.begin(), reply.end());
        out.push_back(m);
    }
    return out;
}

} // namespace pyramid
