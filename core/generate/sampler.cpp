#include "generate/sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <unordered_map>

#include "util/error.h"
#include "util/ranking.h"

namespace pyramid {

Sampler::Sampler(const SamplingParams& params, int n_vocab, int n_tokens)
    : params_(params),
      n_vocab_(n_vocab),
      n_tokens_(n_tokens < 0 ? n_vocab : std::min(n_tokens, n_vocab)),
      rng_(params.seed != 0 ? params.seed : std::random_device{}())
{
    check_params(params_, n_tokens_);
    // Otherwise a backend asked for more top logits than a row has would hand back too few.
    if (params_.top_k >= n_tokens_)
        params_.top_k = 0;
}

void Sampler::check_params(const SamplingParams& params, int n_tokens)
{
    // Refused here rather than left to turn every probability into NaN (a silent greedy draw).
    const auto require = [](bool ok, const char* rule) {
        if (!ok)
            throw Error(std::string("sampling: ") + rule);
    };
    require(std::isfinite(params.temperature) && params.temperature >= 0.0f, "the temperature must be 0 or more");
    require(params.top_k >= 0, "top-k must be 0 (off) or more");
    require(params.top_p >= 0.0f && params.top_p <= 1.0f, "top-p must be from 0 to 1");
    require(params.min_p >= 0.0f && params.min_p <= 1.0f, "min-p must be from 0 to 1");
    require(std::isfinite(params.repetition_penalty) && params.repetition_penalty > 0.0f,
            "repeat-penalty must be above 0 (1: off)");
    require(params.repetition_window >= 0, "the repeat-penalty window must be 0 or more");
    require(std::isfinite(params.frequency_penalty), "the frequency penalty must be a number");
    require(std::isfinite(params.presence_penalty), "the presence penalty must be a number");
    for (const auto& [id, bias] : params.logit_bias) {
        require(std::isfinite(bias), "a logit bias must be a number");
        if (n_tokens >= 0 && (id < 0 || id >= n_tokens))
            throw Error("sampling: the logit bias names token " + std::to_string(id) + ", outside the vocabulary of " +
                        std::to_string(n_tokens));
    }
}

int32_t Sampler::argmax(std::span<const float> logits)
{
    // Ranked as the top-k selection ranks (NaN last), so greedy picks the same either way.
    int best = 0;
    for (int i = 1; i < static_cast<int>(logits.size()); ++i)
        if (ranks_higher(logits, i, best))
            best = i;
    return best;
}

int32_t Sampler::sample(std::span<const float> logits, std::span<const int32_t> history)
{
    std::vector<float> scores(logits.begin(), logits.begin() + std::min<ptrdiff_t>(std::ssize(logits), n_tokens_));
    if (adjusts_logits())
        adjust_logits(scores, history);
    if (params_.temperature <= 0.0f)
        return argmax(scores);
    const int k = params_.top_k > 0 ? params_.top_k : static_cast<int>(scores.size());
    const TopLogits top = select_top_logits(scores, k);
    return draw(top.ids, top.values);
}

bool Sampler::adjusts_logits() const
{
    return !params_.logit_bias.empty() ||
           (params_.repetition_window > 0 &&
            (params_.repetition_penalty != 1.0f || params_.frequency_penalty != 0.0f || params_.presence_penalty != 0.0f));
}

void Sampler::adjust_logits(std::span<float> scores, std::span<const int32_t> history) const
{
    for (const auto& [id, bias] : params_.logit_bias)
        if (static_cast<size_t>(id) < scores.size())  // in range of the vocabulary (checked), so of a whole row
            scores[static_cast<size_t>(id)] += bias;
    const size_t window = std::min(history.size(), static_cast<size_t>(params_.repetition_window));
    std::unordered_map<int32_t, int> seen;
    for (const int32_t t : history.last(window))
        ++seen[t];
    for (const auto& [t, count] : seen) {
        if (t < 0 || static_cast<size_t>(t) >= scores.size())
            continue;
        float& s = scores[static_cast<size_t>(t)];
        // CTRL's penalty pushes a seen token towards "less likely" whatever its logit's sign;
        // OpenAI's are subtracted after it, as llama.cpp applies the three.
        if (params_.repetition_penalty != 1.0f)
            s = s > 0 ? s / params_.repetition_penalty : s * params_.repetition_penalty;
        s -= static_cast<float>(count) * params_.frequency_penalty + params_.presence_penalty;
    }
}

int Sampler::top_logits_needed() const
{
    const int needed = needed_drawable();
    return needed == 0 ? 0 : std::min(needed + (n_vocab_ - n_tokens_), n_vocab_);
}

int Sampler::needed_drawable() const
{
    // A penalty lowers seen tokens, which can lift others from below any fixed top.
    if (adjusts_logits())
        return 0;
    if (params_.temperature <= 0.0f)
        return 1;
    return std::max(params_.top_k, 0);
}

int32_t Sampler::sample_top(const TopLogits& top)
{
    const auto needed = static_cast<size_t>(needed_drawable());
    std::vector<int32_t>& ids = drawable_ids_;
    std::vector<float>& values = drawable_values_;
    ids.clear();
    values.clear();
    for (size_t i = 0; i < top.ids.size() && i < top.values.size() && ids.size() < needed; ++i)
        if (top.ids[i] < n_tokens_) {
            ids.push_back(top.ids[i]);
            values.push_back(top.values[i]);
        }
    if (needed == 0 || ids.size() < needed || top.values.size() != top.ids.size()) {
        const std::string wanted = needed == 0 ? "every logit"
                                               : "the " + std::to_string(needed) + " highest logits of ids below " +
                                                     std::to_string(n_tokens_);
        throw Error("the sampler needs " + wanted + ", got " + std::to_string(ids.size()));
    }
    if (params_.temperature <= 0.0f)
        return ids.front();
    return draw(ids, values);
}

int32_t Sampler::draw(std::span<const int32_t> ids, std::span<const float> values)
{
    // Softmax at the temperature over the survivors, in descending order (NaN last). Only
    // finite logits take part: a NaN or -inf one has no chance, a +inf one takes it all. With
    // none finite the first ranked is as good as any.
    const double top = values[0];
    if (!std::isfinite(top))
        return ids[0];
    const size_t finite = static_cast<size_t>(
        std::find_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); }) - values.begin());
    std::vector<double> probs(finite);
    double sum = 0.0;
    for (size_t i = 0; i < finite; ++i) {
        probs[i] = std::exp((values[i] - top) / params_.temperature);
        sum += probs[i];
    }
    for (double& p : probs)
        p /= sum;

    size_t cut = probs.size();
    if (params_.min_p > 0.0f) {
        const double floor_p = params_.min_p * probs[0];
        cut = static_cast<size_t>(std::find_if(probs.begin(), probs.end(), [&](double p) { return p < floor_p; }) -
                                  probs.begin());
    }
    if (params_.top_p < 1.0f) {
        double cumulative = 0.0;
        for (size_t i = 0; i < cut; ++i) {
            cumulative += probs[i];
            if (cumulative >= params_.top_p) {
                cut = i + 1;
                break;
            }
        }
    }
    cut = std::max<size_t>(cut, 1);
    std::discrete_distribution<size_t> pick(probs.begin(), probs.begin() + static_cast<ptrdiff_t>(cut));
    return ids[pick(rng_)];
}

} // namespace pyramid
