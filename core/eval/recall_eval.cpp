#include "eval/recall_eval.h"

#include <algorithm>

#include "eval/multi_turn_eval.h"
#include "generate/inference_session.h"
#include "generate/sampler.h"
#include "util/error.h"

namespace pyramid {

int RecallTokens::total() const
{
    size_t n = lead_in.size() + answer.size();
    for (const auto& p : prompts)
        n += p.size();
    for (const auto& r : replies)
        n += r.size();
    return static_cast<int>(n);
}

RecallTokens recall_tokens(const ChatTemplate& chat, const Tokenizer& tok, const RecallCase& c)
{
    const auto& messages = c.conversation.messages;
    if (messages.empty() || messages.size() % 2 == 0)
        throw Error("recall case " + c.id + ": the conversation must alternate user/assistant and end with the user");
    for (size_t i = 0; i < messages.size(); ++i)
        if ((messages[i].role == ChatRole::User) != (i % 2 == 0))
            throw Error("recall case " + c.id + ": message " + std::to_string(i) + " has the wrong role");
    if (c.answer.empty())
        throw Error("recall case " + c.id + ": the answer is empty");

    RecallTokens t;
    const std::string& system = c.conversation.system_prompt;
    for (size_t i = 0; i < messages.size(); i += 2) {
        std::vector<int32_t> prompt = i == 0 ? chat.head(system) : chat.after_reply();
        const std::vector<int32_t> ask = chat.exchange(system, messages[i].text, nullptr, i == 0);
        prompt.insert(prompt.end(), ask.begin(), ask.end());
        t.prompts.push_back(std::move(prompt));
        if (i + 1 < messages.size())
            t.replies.push_back(tok.encode(messages[i + 1].text));
    }
    t.lead_in = tok.encode(c.lead_in);
    const std::vector<int32_t> whole = tok.encode(c.lead_in + c.answer);
    if (whole.size() <= t.lead_in.size() || !std::equal(t.lead_in.begin(), t.lead_in.end(), whole.begin()))
        throw Error("recall case " + c.id + ": the lead-in's tokens are not a prefix of the answer's");
    t.answer.assign(whole.begin() + static_cast<ptrdiff_t>(t.lead_in.size()), whole.end());
    return t;
}

std::string to_string(RecallMode mode)
{
    return mode == RecallMode::Extend ? "extend" : "rebuild";
}

RecallScore score_recall(Backend& backend, const CompressionConfig& config, const RecallTokens& tokens,
                         RecallMode mode)
{
    InferenceSession session(backend, config);
    std::vector<float> logits;
    if (mode == RecallMode::Rebuild) {
        std::vector<int32_t> all;
        for (size_t t = 0; t < tokens.prompts.size(); ++t) {
            all.insert(all.end(), tokens.prompts[t].begin(), tokens.prompts[t].end());
            if (t < tokens.replies.size())
                all.insert(all.end(), tokens.replies[t].begin(), tokens.replies[t].end());
        }
        logits = session.prefill(all);
    } else {
        for (size_t t = 0; t < tokens.prompts.size(); ++t) {
            logits = t == 0 ? session.prefill(tokens.prompts[t]) : session.extend(tokens.prompts[t]);
            if (t < tokens.replies.size())
                for (int32_t token : tokens.replies[t])
                    logits = session.decode(token);
        }
    }
    RecallScore score;
    score.kv_bytes = session.cache().bytes();
    score.full_kv_bytes = session.full_cache_bytes();
    for (int32_t token : tokens.lead_in)
        logits = session.decode(token);
    score.recalled = true;
    for (size_t i = 0; i < tokens.answer.size(); ++i) {
        const int32_t token = tokens.answer[i];
        score.answer_logprob -= token_nll(logits, token);
        score.recalled = score.recalled && Sampler::argmax(logits) == token;
        if (i + 1 < tokens.answer.size())
            logits = session.decode(token);
    }
    return score;
}

} // namespace pyramid
