#include "eval_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "json_field.h"
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

namespace {

PerplexityResult result_from_json(const nlohmann::json& run, const std::string& where)
{
    PerplexityResult p;
    p.windows = json_field<int>(run, "windows", where);
    p.scored_tokens = json_field<long>(run, "scored_tokens", where);
    p.mean_nll = json_field<double>(run, "mean_nll", where);
    p.perplexity = json_field<double>(run, "perplexity", where);
    p.window_mean_nll = json_field<std::vector<double>>(run, "window_mean_nll", where);
    p.prefill_lengths = json_field<std::vector<double>>(run, "prefill_kv_lengths", where);
    p.mean_layer_entries = json_field<std::vector<double>>(run, "mean_kv_entries_per_layer", where);
    p.mean_entries_per_layer = json_field<double>(run, "mean_kv_entries", where);
    p.mean_kv_bytes = json_field<double>(run, "mean_kv_bytes", where);
    p.mean_full_kv_bytes = json_field<double>(run, "mean_full_kv_bytes", where);
    p.kv_fraction = json_field<double>(run, "kv_fraction", where);
    if (static_cast<int>(p.window_mean_nll.size()) != p.windows)
        throw Error(fmt::format("{}: {} windows but {} window NLLs", where, p.windows, p.window_mean_nll.size()));
    return p;
}

CompressionConfig config_from_json(const nlohmann::json& object, const char* key, const std::string& where)
{
    if (!object.contains(key) || !object.at(key).is_object())
        throw Error(fmt::format("{} has no \"{}\" object", where, key));
    try {
        return compression_config_from_json(object.at(key).dump());
    } catch (const Error& e) {
        throw Error(fmt::format("{}: {}: {}", where, key, e.what()));
    }
}

std::string file_name(const std::string& path)
{
    return std::filesystem::path(path).filename().string();
}

} // namespace

EvalReport report_from_json(const nlohmann::json& json)
{
    if (!json.is_object() || json.value("tool", "") != "pyramid-eval ppl")
        throw Error("not the JSON of pyramid-eval ppl (its \"tool\" is not \"pyramid-eval ppl\")");
    EvalReport report;
    report.model = json_field<std::string>(json, "model", "the report");
    report.text = json_field<std::string>(json, "text", "the report");
    if (!json.contains("protocol"))
        throw Error("the report has no \"protocol\"");
    const nlohmann::json& protocol = json.at("protocol");
    report.windows.prefill = json_field<int>(protocol, "prefill", "protocol");
    report.windows.continuation = json_field<int>(protocol, "continuation", "protocol");
    report.windows.count = json_field<int>(protocol, "windows", "protocol");
    report.windows.align = parse_window_align(json_field<std::string>(protocol, "align", "protocol"));
    report.windows.paragraph_prefix = json_field<std::string>(protocol, "paragraph_prefix", "protocol");
    report.base = config_from_json(json, "base_config", "the report");
    if (!json.contains("runs") || !json.at("runs").is_array())
        throw Error("the report has no \"runs\" list");
    for (const nlohmann::json& run : json.at("runs")) {
        const std::string where = fmt::format("run {}", report.runs.size() + 1);
        EvalRun r{json_field<std::string>(run, "label", where), json_field<std::string>(run, "series", where),
                  json_field<std::string>(run, "parameters", where), config_from_json(run, "config", where)};
        report.runs.push_back({std::move(r), result_from_json(run, where)});
    }
    return report;
}

EvalReport merge_reports(const std::vector<EvalReport>& reports)
{
    if (reports.empty())
        throw Error("no report to merge");
    EvalReport merged = reports.front();
    merged.runs.clear();
    for (size_t i = 0; i < reports.size(); ++i) {
        const EvalReport& part = reports[i];
        const std::string which = fmt::format("report {}", i + 1);
        if (file_name(part.model) != file_name(merged.model) || file_name(part.text) != file_name(merged.text))
            throw Error(fmt::format("{} scored {} on {}, report 1 {} on {}", which, part.model, part.text, merged.model,
                                    merged.text));
        const WindowOptions& a = part.windows;
        const WindowOptions& b = merged.windows;
        if (a.prefill != b.prefill || a.continuation != b.continuation || a.count != b.count || a.align != b.align ||
            a.paragraph_prefix != b.paragraph_prefix)
            throw Error(fmt::format("{} scored other windows ({} x P={} + C={}, {}) than report 1 ({} x P={} + C={}, {})",
                                    which, a.count, a.prefill, a.continuation, to_string(a.align), b.count, b.prefill,
                                    b.continuation, to_string(b.align)));
        for (const RunResult& run : part.runs) {
            const auto same = std::find_if(merged.runs.begin(), merged.runs.end(),
                                           [&](const RunResult& r) { return r.run.label == run.run.label; });
            if (same == merged.runs.end()) {
                merged.runs.push_back(run);
                continue;
            }
            if (same->run.config != run.run.config)
                throw Error(fmt::format("run \"{}\" of {} has another configuration than before", run.run.label, which));
            if (same->result.window_mean_nll != run.result.window_mean_nll)
                throw Error(fmt::format("run \"{}\" of {} scored other NLLs than before: not the same engine or text",
                                        run.run.label, which));
        }
    }
    return merged;
}

} // namespace pyramid
