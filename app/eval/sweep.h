#pragma once
// Which runs one evaluation makes. Without a sweep: the configured policy, plus the full cache
// as the reference. A decay sweep runs, for every decay ratio d, PyramidInfer at d and the
// local and H2O baselines at the same KV bytes: their budgets are left empty, so the core
// derives them from what PyramidInfer with d keeps (the same total, spread evenly over the
// layers, see kv/baseline_budget.h). A budget sweep runs local and H2O
// with a fixed number of entries at every layer. A fraction sweep runs every selecting baseline
// (local, H2O, SnapKV, PyramidKV) keeping that fraction of a full cache; given with a decay
// sweep, the decay sweep runs PyramidInfer alone (the baselines are on the fraction grid).
// Every sweep adds the full cache.
#include <string>
#include <vector>

#include "kv/compression_config.h"

namespace pyramid {

struct EvalRun {
    std::string label;       // unique, e.g. "pyramid d=0.5"
    std::string series;      // the curve it belongs to in plots, e.g. "pyramid"
    std::string parameters;  // what distinguishes it from the base config, for the table
    CompressionConfig config;
};

struct SweepOptions {
    std::vector<double> decay_ratios;
    std::vector<int> budgets;
    std::vector<double> fractions;
    bool empty() const { return decay_ratios.empty() && budgets.empty() && fractions.empty(); }
};

// `base` carries the knobs shared by every run (its policy matters only without a sweep).
// Throws pyramid::Error for a decay ratio or fraction outside (0, 1] or a budget below 1.
std::vector<EvalRun> plan_runs(const CompressionConfig& base, const SweepOptions& sweep, int n_layers);

// Series names the planner uses (plots give each its own colour).
inline constexpr const char* kSeriesFull = "full";
inline constexpr const char* kSeriesPyramid = "pyramid";
inline constexpr const char* kSeriesLocalMatched = "local (PyramidInfer's bytes)";
inline constexpr const char* kSeriesH2OMatched = "h2o (PyramidInfer's bytes)";
inline constexpr const char* kSeriesLocalFixed = "local (fixed budget)";
inline constexpr const char* kSeriesH2OFixed = "h2o (fixed budget)";
// The fraction sweep's series are the policies' own names ("local", "h2o", "snapkv", "pyramidkv").

} // namespace pyramid
