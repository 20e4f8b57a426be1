#include "eval_report.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "util/error.h"

namespace pyramid {
namespace {

std::string lengths_text(const std::vector<double>& lengths)
{
    std::string out;
    for (double v : lengths)
        out += (out.empty() ? "" : "/") + fmt::format("{:.0f}", v);
    return out;
}

std::string delta_text(const PairedDelta& d)
{
    return fmt::format("{:+.4f} ± {:.4f}", d.mean, d.standard_error);
}

const RunResult* find_run(const EvalReport& report, const std::string& series, double decay)
{
    for (const RunResult& r : report.runs)
        if (r.run.series == series && r.run.config.pyramid.prefill_decay_ratio == decay)
            return &r;
    return nullptr;
}

} // namespace

PairedDelta paired_delta(const PerplexityResult& run, const PerplexityResult& reference)
{
    return paired_delta(run.window_mean_nll, reference.window_mean_nll);
}

PairedDelta paired_delta(const std::vector<double>& run, const std::vector<double>& reference)
{
    const size_t n = run.size();
    if (n != reference.size() || n == 0)
        throw Error(fmt::format("cannot pair results over {} and {} samples", n, reference.size()));
    double sum = 0.0, sum_sq = 0.0;
    for (size_t i = 0; i < n; ++i) {
        const double d = run[i] - reference[i];
        sum += d;
        sum_sq += d * d;
    }
    PairedDelta out;
    out.mean = sum / n;
    if (n > 1) {
        const double variance = std::max(0.0, (sum_sq - n * out.mean * out.mean) / (n - 1));
        out.standard_error = std::sqrt(variance / n);
    }
    return out;
}

const RunResult* full_reference(const EvalReport& report)
{
    for (const RunResult& r : report.runs)
        if (r.run.series == kSeriesFull)
            return &r;
    return nullptr;
}

std::string markdown_table(const EvalReport& report)
{
    const RunResult* full = full_reference(report);
    std::string out =
        "| run | policy | parameters | PPL | ΔNLL vs full (nats/token ± s.e.) | mean KV entries/layer | "
        "KV entries per layer | KV bytes / full |\n"
        "|---|---|---|---:|---:|---:|---|---:|\n";
    for (const RunResult& r : report.runs) {
        const PerplexityResult& p = r.result;
        out += fmt::format("| {} | {} | {} | {:.4f} | {} | {:.1f} | {} | {:.3f} |\n", r.run.label,
                           to_string(r.run.config.policy), r.run.parameters, p.perplexity,
                           full ? delta_text(paired_delta(p, full->result)) : "–", p.mean_entries_per_layer,
                           lengths_text(p.mean_layer_entries), p.kv_fraction);
    }
    return out;
}

std::string markdown_comparison(const EvalReport& report)
{
    std::string out;
    for (const RunResult& pyr : report.runs) {
        if (pyr.run.series != kSeriesPyramid)
            continue;
        const double d = pyr.run.config.pyramid.prefill_decay_ratio;
        const RunResult* local = find_run(report, kSeriesLocalMatched, d);
        const RunResult* h2o = find_run(report, kSeriesH2OMatched, d);
        if (!local || !h2o)
            continue;
        if (out.empty())
            out = "| decay | KV bytes / full (pyramid / local / h2o) | PPL pyramid | PPL local | PPL h2o | "
                  "pyramid − local (nats/token ± s.e.) | pyramid − h2o (nats/token ± s.e.) |\n"
                  "|---:|---|---:|---:|---:|---:|---:|\n";
        out += fmt::format("| {:g} | {:.3f} / {:.3f} / {:.3f} | {:.4f} | {:.4f} | {:.4f} | {} | {} |\n", d,
                           pyr.result.kv_fraction, local->result.kv_fraction, h2o->result.kv_fraction,
                           pyr.result.perplexity, local->result.perplexity, h2o->result.perplexity,
                           delta_text(paired_delta(pyr.result, local->result)),
                           delta_text(paired_delta(pyr.result, h2o->result)));
    }
    return out;
}

nlohmann::json report_to_json(const EvalReport& report)
{
    using nlohmann::json;
    const RunResult* full = full_reference(report);
    json runs = json::array();
    for (const RunResult& r : report.runs) {
        const PerplexityResult& p = r.result;
        json run = {
            {"label", r.run.label},
            {"series", r.run.series},
            {"policy", to_string(r.run.config.policy)},
            {"parameters", r.run.parameters},
            {"config", json::parse(compression_config_to_json(r.run.config))},
            {"perplexity", p.perplexity},
            {"mean_nll", p.mean_nll},
            {"scored_tokens", p.scored_tokens},
            {"windows", p.windows},
            {"window_mean_nll", p.window_mean_nll},
            {"prefill_kv_lengths", p.prefill_lengths},
            {"mean_kv_entries_per_layer", p.mean_layer_entries},
            {"mean_kv_entries", p.mean_entries_per_layer},
            {"mean_kv_bytes", p.mean_kv_bytes},
            {"mean_full_kv_bytes", p.mean_full_kv_bytes},
            {"kv_fraction", p.kv_fraction},
        };
        if (full) {
            const PairedDelta d = paired_delta(p, full->result);
            run["delta_nll_vs_full"] = {{"mean", d.mean}, {"standard_error", d.standard_error}};
        }
        runs.push_back(std::move(run));
    }
    return {
        {"tool", "pyramid-eval ppl"},
        {"model", report.model},
        {"text", report.text},
        {"protocol",
         {{"prefill", report.windows.prefill},
          {"continuation", report.windows.continuation},
          {"windows", report.windows.count},
          {"align", to_string(report.windows.align)},
          {"paragraph_prefix", report.windows.paragraph_prefix},
          {"scoring", "teacher-forced decode; token t+1 scored by the logits after token t"}}},
        {"base_config", json::parse(compression_config_to_json(report.base))},
        {"runs", std::move(runs)},
    };
}

} // namespace pyramid
