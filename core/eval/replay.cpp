#include "eval/replay.h"

#include <algorithm>
#include <cmath>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "generate/inference_session.h"
#include "generate/sampler.h"
#include "util/error.h"

namespace pyramid {

ReplayRecord replay_record_from_json(const nlohmann::json& j)
{
    ReplayRecord r;
    try {
        r.name = j.value("name", "");
        r.model = j.value("model", "");
        j.at("prompt_tokens").get_to(r.prompt_tokens);
        const nlohmann::json& config = j.at("config");
        r.config_is_null = config.is_null();
        r.config = compression_config_from_json(config.dump());
        r.has_prefill = j.contains("prefill");
        if (r.has_prefill) {
            const auto& p = j.at("prefill");
            p.at("kv_lengths").get_to(r.prefill_kv_lengths);
            p.at("kv_positions").get_to(r.prefill_kv_positions);
            p.at("last_logits").get_to(r.prefill_last_logits);
        }
        const auto& g = j.at("generation");
        g.at("greedy_tokens").get_to(r.greedy_tokens);
        r.has_step_records = g.contains("kv_lengths_after_each_step");
        if (r.has_step_records) {
            g.at("kv_lengths_after_each_step").get_to(r.kv_lengths_after_each_step);
            g.at("final_kv_positions").get_to(r.final_kv_positions);
            g.at("final_logits").get_to(r.final_logits);
        }
    } catch (const nlohmann::json::exception& e) {
        throw Error(fmt::format("replay case{}: {}", r.name.empty() ? "" : " " + r.name, e.what()));
    }
    return r;
}

nlohmann::json replay_record_to_json(const ReplayRecord& r)
{
    nlohmann::json config = r.config_is_null ? nlohmann::json(nullptr)
                                             : nlohmann::json::parse(compression_config_to_json(r.config));
    return {
        {"name", r.name},
        {"model", r.model},
        {"prompt_len", r.prompt_tokens.size()},
        {"prompt_tokens", r.prompt_tokens},
        {"config", config},
        {"prefill",
         {{"kv_lengths", r.prefill_kv_lengths},
          {"kv_positions", r.prefill_kv_positions},
          {"last_logits", r.prefill_last_logits}}},
        {"generation",
         {{"greedy_tokens", r.greedy_tokens},
          {"kv_lengths_after_each_step", r.kv_lengths_after_each_step},
          {"final_kv_positions", r.final_kv_positions},
          {"final_logits", r.final_logits}}},
    };
}

ReplayRecord load_replay_case(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw Error("cannot open replay case " + path);
    try {
        return replay_record_from_json(nlohmann::json::parse(in));
    } catch (const nlohmann::json::parse_error& e) {
        throw Error(path + ": not valid JSON: " + e.what());
    }
}

namespace {

std::vector<std::vector<int32_t>> all_positions(const KvCache& cache)
{
    std::vector<std::vector<int32_t>> out;
    for (int l = 0; l < cache.n_layers(); ++l) {
        auto p = cache.positions(l);
        out.emplace_back(p.begin(), p.end());
    }
    return out;
}

} // namespace

ReplayRecord run_replay(Backend& backend, const ReplayRecord& the_case)
{
    ReplayRecord out;
    out.name = the_case.name;
    out.model = the_case.model;
    out.prompt_tokens = the_case.prompt_tokens;
    out.config = the_case.config;
    out.config_is_null = the_case.config_is_null;

    InferenceSession session(backend, the_case.config);
    std::vector<float> logits = session.prefill(the_case.prompt_tokens);
    out.prefill_kv_lengths = session.cache().lengths();
    out.prefill_kv_positions = all_positions(session.cache());
    out.prefill_last_logits = logits;
    for (size_t step = 0; step < the_case.greedy_tokens.size(); ++step) {
        const int32_t token = Sampler::argmax(logits);
        out.greedy_tokens.push_back(token);
        logits = session.decode(token);
        out.kv_lengths_after_each_step.push_back(session.cache().lengths());
    }
    out.final_kv_positions = all_positions(session.cache());
    out.final_logits = logits;
    return out;
}

double relative_error(const std::vector<float>& actual, const std::vector<float>& expected)
{
    if (actual.size() != expected.size())
        return INFINITY;
    double diff = 0.0, scale = 0.0;
    for (size_t i = 0; i < actual.size(); ++i) {
        diff = std::max(diff, std::abs(static_cast<double>(actual[i]) - expected[i]));
        scale = std::max(scale, std::abs(static_cast<double>(expected[i])));
    }
    return scale > 0.0 ? diff / scale : diff;
}

std::vector<std::string> compare_replay(const ReplayRecord& expected, const ReplayRecord& actual,
                                        double logits_tolerance)
{
    std::vector<std::string> diffs;
    const auto exact = [&](const std::string& field, const auto& e, const auto& a) {
        if (e != a)
            diffs.push_back(field + " differs");
    };
    if (expected.has_prefill) {
        exact("prefill.kv_lengths", expected.prefill_kv_lengths, actual.prefill_kv_lengths);
        exact("prefill.kv_positions", expected.prefill_kv_positions, actual.prefill_kv_positions);
    }
    for (size_t i = 0; i < std::min(expected.greedy_tokens.size(), actual.greedy_tokens.size()); ++i)
        if (expected.greedy_tokens[i] != actual.greedy_tokens[i]) {
            diffs.push_back(fmt::format("generation.greedy_tokens differ first at step {} (expected {}, got {})", i,
                                        expected.greedy_tokens[i], actual.greedy_tokens[i]));
            break;
        }
    if (expected.greedy_tokens.size() != actual.greedy_tokens.size())
        diffs.push_back("generation.greedy_tokens have a different count");
    const auto& el = expected.kv_lengths_after_each_step;
    const auto& al = actual.kv_lengths_after_each_step;
    for (size_t i = 0; i < std::min(el.size(), al.size()); ++i)
        if (el[i] != al[i]) {
            diffs.push_back(fmt::format("generation.kv_lengths_after_each_step differ first at step {}", i));
            break;
        }
    if (expected.has_step_records)
        exact("generation.final_kv_positions", expected.final_kv_positions, actual.final_kv_positions);
    const auto close = [&](const std::string& field, const std::vector<float>& e, const std::vector<float>& a) {
        if (e.empty())
            return;
        const double err = relative_error(a, e);
        if (!(err <= logits_tolerance))
            diffs.push_back(fmt::format("{} relative error {:.3g} > {:.3g}", field, err, logits_tolerance));
    };
    close("prefill.last_logits", expected.prefill_last_logits, actual.prefill_last_logits);
    close("generation.final_logits", expected.final_logits, actual.final_logits);
    return diffs;
}

} // namespace pyramid
