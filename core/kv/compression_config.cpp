#include "kv/compression_config.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/json_input.h"

namespace pyramid {
namespace {

void require(bool ok, const std::string& field, const std::string& rule, double value)
{
    if (!ok)
        throw Error("compression setting " + field + " = " + nlohmann::json(value).dump() + ": " + rule);
}

void require_ratio(double value, const std::string& field)
{
    require(std::isfinite(value) && value > 0.0 && value <= 1.0, field, "must be in (0, 1]", value);
}

// A JSON number that is a whole number in int's range (3.7, 4294967301 and 1e30 are not).
int json_int(const nlohmann::json& v, const std::string& field)
{
    const bool whole = v.is_number_integer() || (v.is_number_float() && std::isfinite(v.get<double>()) &&
                                                 std::trunc(v.get<double>()) == v.get<double>());
    if (!whole)
        throw Error("compression setting " + field + " must be a whole number, found " + json_excerpt(v));
    const double value = v.is_number_unsigned() ? static_cast<double>(v.get<uint64_t>()) : v.get<double>();
    if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max())
        throw Error("compression setting " + field + " = " + json_excerpt(v) + " is out of range");
    return v.is_number_integer() ? static_cast<int>(v.get<int64_t>()) : static_cast<int>(value);
}

double json_number(const nlohmann::json& v, const std::string& field)
{
    if (!v.is_number())
        throw Error("compression setting " + field + " must be a number, found " + json_excerpt(v));
    return v.get<double>();
}

std::string json_string(const nlohmann::json& v, const std::string& field)
{
    if (!v.is_string())
        throw Error("compression setting " + field + " must be a string, found " + json_excerpt(v));
    return v.get<std::string>();
}

bool json_bool(const nlohmann::json& v, const std::string& field)
{
    if (!v.is_boolean())
        throw Error("compression setting " + field + " must be true or false, found " + json_excerpt(v));
    return v.get<bool>();
}

// Levenshtein distance, for "did you mean" on a misspelt setting.
size_t edit_distance(const std::string& a, const std::string& b)
{
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

} // namespace

void CompressionConfig::validate() const
{
    const PyramidSettings& p = pyramid;
    require(std::isfinite(p.recent_ratio) && p.recent_ratio >= 0.0 && p.recent_ratio < 1.0,
            "recent_ratio", "must be in [0, 1)", p.recent_ratio);
    require_ratio(p.prefill_decay_ratio, "prefill_decay_ratio");
    require_ratio(p.gen_decay_ratio, "gen_decay_ratio");
    require_ratio(p.gen_compress_ratio, "gen_compress_ratio");
    require(p.min_context_length >= 0, "min_context_length", "must not be negative", p.min_context_length);
    require(p.layerwise_downsample_interval >= 1, "layerwise_downsample_interval", "must be at least 1",
            p.layerwise_downsample_interval);
    require(p.sink_tokens >= 0, "sink_tokens", "must not be negative", p.sink_tokens);
    require(std::isfinite(p.distance_weight) && p.distance_weight > 0.0, "distance_weight", "must be positive",
            p.distance_weight);
    require(p.exceed_length_to_compress >= 1, "exceed_length_to_compress", "must be at least 1",
            p.exceed_length_to_compress);
    require(p.observation_window >= 0, "pyramid_observation_window", "must not be negative (0: the recent window)",
            p.observation_window);
    require(p.pooling_kernel >= 1 && p.pooling_kernel % 2 == 1, "pyramid_pooling_kernel",
            "must be an odd number, at least 1", p.pooling_kernel);
    require(std::isfinite(baseline_recent_fraction) && baseline_recent_fraction >= 0.0 && baseline_recent_fraction <= 1.0,
            "baseline_recent_fraction", "must be in [0, 1]", baseline_recent_fraction);
    require(std::isfinite(budget_fraction) && budget_fraction >= 0.0 && budget_fraction <= 1.0, "budget_fraction",
            "must be in [0, 1] (0: PyramidInfer's bytes)", budget_fraction);
    require(observation_window >= 1, "observation_window", "must be at least 1", observation_window);
    require(pooling_kernel >= 1 && pooling_kernel % 2 == 1, "pooling_kernel", "must be an odd number, at least 1",
            pooling_kernel);
    require(std::isfinite(pyramidkv_beta) && pyramidkv_beta >= 1.0, "pyramidkv_beta", "must be at least 1",
            pyramidkv_beta);
    if (kv_selection == KvSelection::PerHead && policy != CompressionPolicyKind::SnapKV &&
        policy != CompressionPolicyKind::PyramidKV)
        throw Error("compression setting kv_selection = \"per-head\": only snapkv and pyramidkv select per KV head; " +
                    to_string(policy) + " keeps one set of entries per layer (use per-layer)");
    for (size_t l = 0; l < layer_budgets.size(); ++l)
        require(layer_budgets[l] >= 1, "layer_budgets[" + std::to_string(l) + "]", "must be at least 1",
                layer_budgets[l]);
}

void CompressionConfig::validate_for(int n_layers) const
{
    validate();
    if (!layer_budgets.empty() && static_cast<int>(layer_budgets.size()) != n_layers)
        throw Error("layer_budgets has " + std::to_string(layer_budgets.size()) + " entries but the model has " +
                    std::to_string(n_layers) + " layers");
}

CompressionConfig CompressionConfig::full_cache()
{
    CompressionConfig config;
    config.policy = CompressionPolicyKind::Full;
    return config;
}

std::vector<CompressionPolicyKind> compression_policy_kinds()
{
    return {CompressionPolicyKind::Full,  CompressionPolicyKind::Pyramid, CompressionPolicyKind::Local,
            CompressionPolicyKind::H2O,   CompressionPolicyKind::SnapKV,  CompressionPolicyKind::PyramidKV};
}

std::string to_string(CompressionPolicyKind kind)
{
    switch (kind) {
    case CompressionPolicyKind::Full: return "full";
    case CompressionPolicyKind::Pyramid: return "pyramid";
    case CompressionPolicyKind::Local: return "local";
    case CompressionPolicyKind::H2O: return "h2o";
    case CompressionPolicyKind::SnapKV: return "snapkv";
    case CompressionPolicyKind::PyramidKV: return "pyramidkv";
    }
    return "?";
}

std::string to_string(DecaySchedule schedule)
{
    switch (schedule) {
    case DecaySchedule::Cosine: return "cosine";
    case DecaySchedule::Linear: return "linear";
    case DecaySchedule::Constant: return "constant";
    }
    return "?";
}

std::string to_string(KvSelection selection)
{
    return selection == KvSelection::PerHead ? "per-head" : "per-layer";
}

KvSelection parse_kv_selection(const std::string& text)
{
    for (auto s : {KvSelection::PerLayer, KvSelection::PerHead})
        if (text == to_string(s))
            return s;
    throw Error("unknown KV selection '" + text + "' (known: per-layer, per-head)");
}

CompressionPolicyKind parse_policy_kind(const std::string& text)
{
    for (auto kind : compression_policy_kinds())
        if (text == to_string(kind))
            return kind;
    std::string known;
    for (auto kind : compression_policy_kinds())
        known += (known.empty() ? "" : ", ") + to_string(kind);
    throw Error("unknown compression policy '" + text + "' (known: " + known + ")");
}

DecaySchedule parse_decay_schedule(const std::string& text)
{
    for (auto s : {DecaySchedule::Cosine, DecaySchedule::Linear, DecaySchedule::Constant})
        if (text == to_string(s))
            return s;
    throw Error("unknown decay strategy '" + text + "' (known: cosine, linear, constant)");
}

std::string compression_config_to_json(const CompressionConfig& config)
{
    const PyramidSettings& p = config.pyramid;
    nlohmann::json j = {
        {"policy", to_string(config.policy)},
        {"recent_ratio", p.recent_ratio},
        {"prefill_decay_ratio", p.prefill_decay_ratio},
        {"prefill_decay_strategy", to_string(p.prefill_decay_strategy)},
        {"min_context_length", p.min_context_length},
        {"layerwise_downsample_interval", p.layerwise_downsample_interval},
        {"sink_tokens", p.sink_tokens},
        {"distance_weight", p.distance_weight},
        {"gen_decay_ratio", p.gen_decay_ratio},
        {"gen_decay_strategy", to_string(p.gen_decay_strategy)},
        {"gen_compress_ratio", p.gen_compress_ratio},
        {"exceed_length_to_compress", p.exceed_length_to_compress},
        {"pyramid_observation_window", p.observation_window},
        {"pyramid_pooling_kernel", p.pooling_kernel},
        {"keep_hidden_states", p.keep_hidden_states},
        {"layer_budgets", config.layer_budgets},
        {"budget_fraction", config.budget_fraction},
        {"baseline_recent_fraction", config.baseline_recent_fraction},
        {"observation_window", config.observation_window},
        {"pooling_kernel", config.pooling_kernel},
        {"pyramidkv_beta", config.pyramidkv_beta},
        {"kv_selection", to_string(config.kv_selection)},
    };
    return j.dump(2);
}

CompressionConfig compression_config_from_json(const std::string& text)
{
    const nlohmann::json j = parse_json_document(text, "compression config");
    if (j.is_null())  // the golden files' way of saying "full cache"
        return CompressionConfig::full_cache();
    if (!j.is_object())
        throw Error("compression config must be a JSON object or null");

    CompressionConfig config;
    PyramidSettings& p = config.pyramid;
    const std::map<std::string, std::function<void(const nlohmann::json&, const std::string&)>> fields = {
        {"policy", [&](const auto& v, const auto& k) { config.policy = parse_policy_kind(json_string(v, k)); }},
        {"recent_ratio", [&](const auto& v, const auto& k) { p.recent_ratio = json_number(v, k); }},
        {"prefill_decay_ratio", [&](const auto& v, const auto& k) { p.prefill_decay_ratio = json_number(v, k); }},
        {"prefill_decay_strategy",
         [&](const auto& v, const auto& k) { p.prefill_decay_strategy = parse_decay_schedule(json_string(v, k)); }},
        {"min_context_length", [&](const auto& v, const auto& k) { p.min_context_length = json_int(v, k); }},
        {"layerwise_downsample_interval",
         [&](const auto& v, const auto& k) { p.layerwise_downsample_interval = json_int(v, k); }},
        {"sink_tokens", [&](const auto& v, const auto& k) { p.sink_tokens = json_int(v, k); }},
        {"distance_weight", [&](const auto& v, const auto& k) { p.distance_weight = json_number(v, k); }},
        {"gen_decay_ratio", [&](const auto& v, const auto& k) { p.gen_decay_ratio = json_number(v, k); }},
        {"gen_decay_strategy",
         [&](const auto& v, const auto& k) { p.gen_decay_strategy = parse_decay_schedule(json_string(v, k)); }},
        {"gen_compress_ratio", [&](const auto& v, const auto& k) { p.gen_compress_ratio = json_number(v, k); }},
        {"exceed_length_to_compress",
         [&](const auto& v, const auto& k) { p.exceed_length_to_compress = json_int(v, k); }},
        {"pyramid_observation_window",
         [&](const auto& v, const auto& k) { p.observation_window = json_int(v, k); }},
        {"pyramid_pooling_kernel", [&](const auto& v, const auto& k) { p.pooling_kernel = json_int(v, k); }},
        {"keep_hidden_states", [&](const auto& v, const auto& k) { p.keep_hidden_states = json_bool(v, k); }},
        {"layer_budgets",
         [&](const auto& v, const auto& k) {
             if (!v.is_array())
                 throw Error("compression setting " + k + " must be an array of integers, found " + json_excerpt(v));
             config.layer_budgets.clear();
             for (size_t i = 0; i < v.size(); ++i)
                 config.layer_budgets.push_back(json_int(v[i], k + "[" + std::to_string(i) + "]"));
         }},
        {"budget_fraction", [&](const auto& v, const auto& k) { config.budget_fraction = json_number(v, k); }},
        {"baseline_recent_fraction",
         [&](const auto& v, const auto& k) { config.baseline_recent_fraction = json_number(v, k); }},
        {"observation_window", [&](const auto& v, const auto& k) { config.observation_window = json_int(v, k); }},
        {"pooling_kernel", [&](const auto& v, const auto& k) { config.pooling_kernel = json_int(v, k); }},
        {"pyramidkv_beta", [&](const auto& v, const auto& k) { config.pyramidkv_beta = json_number(v, k); }},
        {"kv_selection",
         [&](const auto& v, const auto& k) { config.kv_selection = parse_kv_selection(json_string(v, k)); }},
    };
    for (const auto& [key, value] : j.items()) {
        const auto field = fields.find(key);
        if (field == fields.end()) {
            std::string nearest;
            size_t best = std::string::npos;
            for (const auto& [known, set] : fields)
                if (const size_t d = edit_distance(key, known); d < best) {
                    best = d;
                    nearest = known;
                }
            throw Error("compression config has an unknown setting " + json_excerpt(key) +
                        (best <= 3 ? " (did you mean \"" + nearest + "\"?)" : ""));
        }
        field->second(value, key);
    }
    config.validate();
    return config;
}

} // namespace pyramid
