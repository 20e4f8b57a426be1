#include "generate/token_logprobs.h"

#include <cmath>
#include <limits>

#include "backend/top_logits.h"

namespace pyramid {

TokenLogprobs token_logprobs(std::span<const float> logits, int32_t drawn, int likeliest)
{
    // log softmax = logit - (max + log sum exp(logit - max)) over the finite logits; NaN counts
    // as no chance (as the sampler treats it), and +inf logits share all of the probability.
    constexpr double kNone = -std::numeric_limits<double>::infinity();
    double max = kNone;
    int infinite = 0;
    for (const float l : logits) {
        if (std::isinf(l) && l > 0)
            ++infinite;
        else if (std::isfinite(l) && l > max)
            max = l;
    }
    double log_total = 0;
    if (infinite == 0 && std::isfinite(max)) {
        double sum = 0;
        for (const float l : logits)
            if (std::isfinite(l))
                sum += std::exp(static_cast<double>(l) - max);
        log_total = max + std::log(sum);
    }
    const auto logprob_of = [&](int32_t id) {
        const float l = logits[static_cast<size_t>(id)];
        double value = kNone;
        if (infinite > 0)
            value = std::isinf(l) && l > 0 ? -std::log(static_cast<double>(infinite)) : kNone;
        else if (std::isfinite(l))
            value = static_cast<double>(l) - log_total;
        return TokenLogprob{id, static_cast<float>(value)};
    };
    TokenLogprobs out;
    out.drawn = logprob_of(drawn);
    if (likeliest > 0)
        for (const int32_t id : select_top_logits(logits, likeliest).ids)
            out.likeliest.push_back(logprob_of(id));
    return out;
}

} // namespace pyramid
