#include "sweep.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/error.h"

namespace pyramid {
namespace {

std::string decay_text(double d)
{
    return fmt::format("{:g}", d);
}

// PyramidInfer's parameters as the tables show them: the decay ratio and the options set.
std::string pyramid_parameters(const PyramidSettings& p)
{
    std::string text = "decay=" + decay_text(p.prefill_decay_ratio);
    if (p.observation_window > 0)
        text += fmt::format(", window={}", p.observation_window);
    if (p.pooling_kernel > 1)
        text += fmt::format(", pool={}", p.pooling_kernel);
    if (p.keep_hidden_states)
        text += ", hidden states kept";
    return text;
}

EvalRun full_run()
{
    return {"full", kSeriesFull, "no compression", CompressionConfig::full_cache()};
}

// The run the options describe when nothing is swept.
EvalRun single_run(const CompressionConfig& base)
{
    const PyramidSettings& p = base.pyramid;
    std::string parameters;
    switch (base.policy) {
    case CompressionPolicyKind::Full: return full_run();
    case CompressionPolicyKind::Pyramid: parameters = pyramid_parameters(p); break;
    case CompressionPolicyKind::Local:
    case CompressionPolicyKind::H2O:
    case CompressionPolicyKind::SnapKV:
    case CompressionPolicyKind::PyramidKV:
        parameters = !base.layer_budgets.empty()   ? fmt::format("budgets={}", fmt::join(base.layer_budgets, ","))
                     : base.budget_fraction > 0.0 ? "keeps " + decay_text(base.budget_fraction) + " of full"
                                                  : "bytes of pyramid decay=" + decay_text(p.prefill_decay_ratio);
        if (base.kv_selection == KvSelection::PerHead)
            parameters += ", per KV head";
        break;
    }
    const std::string name = to_string(base.policy);
    return {name, name, parameters, base};
}

} // namespace

std::vector<EvalRun> plan_runs(const CompressionConfig& base, const SweepOptions& sweep, int n_layers)
{
    std::vector<EvalRun> runs{full_run()};
    if (sweep.empty() && base.policy != CompressionPolicyKind::Full)
        runs.push_back(single_run(base));
    for (double d : sweep.decay_ratios) {
        if (!(d > 0.0 && d <= 1.0))
            throw Error(fmt::format("decay ratio {} is outside (0, 1]", d));
        CompressionConfig c = base;
        c.pyramid.prefill_decay_ratio = d;
        c.layer_budgets.clear();
        const std::string dt = decay_text(d);
        c.policy = CompressionPolicyKind::Pyramid;
        runs.push_back({"pyramid d=" + dt, kSeriesPyramid, pyramid_parameters(c.pyramid), c});
        if (!sweep.fractions.empty())
            continue;
        c.policy = CompressionPolicyKind::Local;
        runs.push_back({"local @ d=" + dt, kSeriesLocalMatched, "total bytes of pyramid decay=" + dt, c});
        c.policy = CompressionPolicyKind::H2O;
        runs.push_back({"h2o @ d=" + dt, kSeriesH2OMatched, "total bytes of pyramid decay=" + dt, c});
    }
    for (int b : sweep.budgets) {
        if (b < 1)
            throw Error(fmt::format("budget {} must be at least 1", b));
        CompressionConfig c = base;
        c.layer_budgets.assign(static_cast<size_t>(n_layers), b);
        const std::string text = fmt::format("budget={}/layer", b);
        c.policy = CompressionPolicyKind::Local;
        runs.push_back({fmt::format("local b={}", b), kSeriesLocalFixed, text, c});
        c.policy = CompressionPolicyKind::H2O;
        runs.push_back({fmt::format("h2o b={}", b), kSeriesH2OFixed, text, c});
    }
    for (double f : sweep.fractions) {
        if (!(f > 0.0 && f <= 1.0))
            throw Error(fmt::format("cache fraction {} is outside (0, 1]", f));
        CompressionConfig c = base;
        c.layer_budgets.clear();
        c.budget_fraction = f;
        const std::string ft = decay_text(f);
        for (CompressionPolicyKind kind : {CompressionPolicyKind::Local, CompressionPolicyKind::H2O,
                                           CompressionPolicyKind::SnapKV, CompressionPolicyKind::PyramidKV}) {
            c.policy = kind;
            const std::string name = to_string(kind);
            runs.push_back({name + " f=" + ft, name, "keeps " + ft + " of full", c});
        }
    }
    for (const EvalRun& run : runs)
        run.config.validate_for(n_layers);  // fail before any run starts
    return runs;
}

} // namespace pyramid
