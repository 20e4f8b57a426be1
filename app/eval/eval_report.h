#pragma once
// The results of one evaluation and their two text forms: Markdown tables for people (stdout,
// docs/quality) and JSON for tools. Quality differences are also given per token in nats
// against the full cache, paired over windows, with their standard error, so a reader can
// tell a real gap from noise.
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "perplexity.h"
#include "sweep.h"
#include "text_windows.h"

namespace pyramid {

struct RunResult {
    EvalRun run;
    PerplexityResult result;
};

struct EvalReport {
    std::string model;        // path as given
    std::string text;         // path as given
    WindowOptions windows;
    CompressionConfig base;   // knobs shared by the runs
    std::vector<RunResult> runs;
};

// Mean over paired samples of (run - reference) and its standard error.
struct PairedDelta {
    double mean = 0.0;
    double standard_error = 0.0;
};
// Throws pyramid::Error when the two hold different numbers of samples, or none.
PairedDelta paired_delta(const std::vector<double>& run, const std::vector<double>& reference);
// Over windows, of their mean NLLs.
PairedDelta paired_delta(const PerplexityResult& run, const PerplexityResult& reference);

// The run of series "full", if the report has one.
const RunResult* full_reference(const EvalReport& report);

// One row per run: label, policy, parameters, PPL, delta NLL vs full, mean KV entries per
// layer (overall and per layer), KV bytes as a fraction of full.
std::string markdown_table(const EvalReport& report);
// One row per swept decay ratio with PyramidInfer, local and H2O side by side at equal KV
// bytes and the paired differences between them; empty when the report has no decay sweep.
std::string markdown_comparison(const EvalReport& report);

nlohmann::json report_to_json(const EvalReport& report);
// The inverse of report_to_json (the statistics it derives, such as delta_nll_vs_full, are
// recomputed, not read). Throws pyramid::Error naming the first field that is missing or of
// the wrong type, or when the JSON is not from `pyramid-eval ppl`.
EvalReport report_from_json(const nlohmann::json& json);

// One report with every run of `reports`, in their order, for a sweep run in parts (one
// process per budget). The parts must have scored the same windows: the same model and text
// file names and the same protocol. A label found in several parts is one run there and
// appears once; it must have the same configuration and the same per-window NLLs in each (the
// engine is deterministic), which checks the parts against each other through the full cache
// every sweep adds. Throws pyramid::Error naming the first difference.
EvalReport merge_reports(const std::vector<EvalReport>& reports);

} // namespace pyramid
