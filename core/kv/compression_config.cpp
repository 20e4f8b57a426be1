#include "kv/compression_config.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "util/error.h"

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
    require(std::isfinite(baseline_recent_fraction) && baseline_recent_fraction >= 0.0 && baseline_recent_fraction <= 1.0,
            "baseline_recent_fraction", "must be in [0, 1]", baseline_recent_fraction);
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

std::vector<std::string> compression_preset_names() { return {"reference-7b", "reference-13b"}; }

CompressionConfig compression_preset(const std::string& name)
{
    CompressionConfig config;  // the defaults are the 7B reference values
    if (name == "reference-7b")
        return config;
    if (name == "reference-13b") {
        config.pyramid.prefill_decay_ratio = 0.8;
        config.pyramid.layerwise_downsample_interval = 2;
        return config;
    }
    throw Error("unknown compression preset '" + name + "' (known: reference-7b, reference-13b)");
}

std::string to_string(CompressionPolicyKind kind)
{
    switch (kind) {
    case CompressionPolicyKind::Full: return "full";
    case CompressionPolicyKind::Pyramid: return "pyramid";
    case CompressionPolicyKind::Local: return "local";
    case CompressionPolicyKind::H2O: return "h2o";
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

CompressionPolicyKind parse_policy_kind(const std::string& text)
{
    for (auto kind : {CompressionPolicyKind::Full, CompressionPolicyKind::Pyramid, CompressionPolicyKind::Local,
                      CompressionPolicyKind::H2O})
        if (text == to_string(kind))
            return kind;
    throw Error("unknown compression policy '" + text + "' (known: full, pyramid, local, h2o)");
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
        {"layer_budgets", config.layer_budgets},
        {"baseline_recent_fraction", config.baseline_recent_fraction},
    };
    return j.dump(2);
}

CompressionConfig compression_config_from_json(const std::string& text)
{
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw Error(std::string("compression config is not valid JSON: ") + e.what());
    }
    if (j.is_null())  // the golden files' way of saying "full cache"
        return CompressionConfig::full_cache();
    if (!j.is_object())
        throw Error("compression config must be a JSON object or null");

    CompressionConfig config;
    PyramidSettings& p = config.pyramid;
    try {
        auto read = [&](const char* key, auto& field) {
            if (j.contains(key))
                j.at(key).get_to(field);
        };
        if (j.contains("policy"))
            config.policy = parse_policy_kind(j.at("policy").get<std::string>());
        read("recent_ratio", p.recent_ratio);
        read("prefill_decay_ratio", p.prefill_decay_ratio);
        if (j.contains("prefill_decay_strategy"))
            p.prefill_decay_strategy = parse_decay_schedule(j.at("prefill_decay_strategy").get<std::string>());
        read("min_context_length", p.min_context_length);
        read("layerwise_downsample_interval", p.layerwise_downsample_interval);
        read("sink_tokens", p.sink_tokens);
        read("distance_weight", p.distance_weight);
        read("gen_decay_ratio", p.gen_decay_ratio);
        if (j.contains("gen_decay_strategy"))
            p.gen_decay_strategy = parse_decay_schedule(j.at("gen_decay_strategy").get<std::string>());
        read("gen_compress_ratio", p.gen_compress_ratio);
        read("exceed_length_to_compress", p.exceed_length_to_compress);
        read("layer_budgets", config.layer_budgets);
        read("baseline_recent_fraction", config.baseline_recent_fraction);
    } catch (const nlohmann::json::exception& e) {
        throw Error(std::string("compression config has a field of the wrong type: ") + e.what());
    }
    config.validate();
    return config;
}

} // namespace pyramid
