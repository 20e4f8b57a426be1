#pragma once
// Replays a case in the golden-file format (shared/golden/*.json, see docs/pyramidinfer.md):
// prefill the prompt with the case's compression config (null: full cache), then greedy-decode
// as many steps as the case has tokens, recording per-layer lengths, kept positions, tokens
// and logits. The comparison lists every field that differs; lengths, positions and tokens
// must match exactly, logits within a relative tolerance.
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "backend/backend.h"
#include "kv/compression_config.h"

namespace pyramid {

struct ReplayRecord {
    std::string name;
    std::string model;                 // model file name, as the case names it
    std::vector<int32_t> prompt_tokens;
    CompressionConfig config;
    bool config_is_null = false;       // the case said "config": null (full cache)
    std::vector<int> prefill_kv_lengths;
    std::vector<std::vector<int32_t>> prefill_kv_positions;
    std::vector<float> prefill_last_logits;
    std::vector<int32_t> greedy_tokens;
    std::vector<std::vector<int>> kv_lengths_after_each_step;
    std::vector<std::vector<int32_t>> final_kv_positions;
    std::vector<float> final_logits;
    // Which optional parts a case holds: compare_replay checks only those.
    bool has_prefill = true;
    bool has_step_records = true;  // kv_lengths_after_each_step, final_kv_positions, final_logits
};

ReplayRecord replay_record_from_json(const nlohmann::json& json);  // throws pyramid::Error
nlohmann::json replay_record_to_json(const ReplayRecord& record);
ReplayRecord load_replay_case(const std::string& path);            // throws pyramid::Error

// Runs the case's prompt and step count through `backend`; fills every recorded field.
ReplayRecord run_replay(Backend& backend, const ReplayRecord& the_case);

// Human-readable differences, empty when `actual` matches `expected`.
std::vector<std::string> compare_replay(const ReplayRecord& expected, const ReplayRecord& actual,
                                        double logits_tolerance = 1e-4);

// max |a - b| / max |b|: the relative error of a logit vector against a reference.
double relative_error(const std::vector<float>& actual, const std::vector<float>& expected);

} // namespace pyramid
