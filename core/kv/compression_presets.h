#pragma once
// Named compression settings a user picks instead of setting knobs one by one:
//   balanced       — the most memory saved at about the full cache's quality on the
//                    measurements below (docs/quality/smollm2-policies.md);
//   recall         — PyramidInfer scoring by its last 32 tokens, pooled: the most facts from
//                    earlier turns kept at about three quarters of the cache;
//   max-saving     — about half the cache, at a measured cost;
//   reference-7b,
//   reference-13b  — PyramidInfer with its paper's knobs (docs/pyramidinfer.md in ../shared).
// Each carries what it was measured to cost, where it was measured, so a settings panel can
// show the price next to the knobs.
#include <optional>
#include <string>
#include <vector>

#include "kv/compression_config.h"

namespace pyramid {

// Measured on SmolLM2-135M-Instruct (CPU, f32 cache), docs/quality/smollm2-policies.md.
struct PresetMeasurement {
    double kv_share = 0;           // KV bytes kept / a full cache's, prompt 2048 + 128 tokens
    double perplexity_change = 0;  // relative to the full cache on WikiText-2 (0.006: +0.6%)
    double recall_vs_full = 0;     // facts recalled across turns / recalled with the full cache
    std::string source;            // the report's rows
};

struct CompressionPreset {
    std::string name;
    CompressionConfig config;
    std::optional<PresetMeasurement> measured;
};

std::vector<CompressionPreset> compression_presets();  // in menu order
std::vector<std::string> compression_preset_names();
// Throws pyramid::Error naming the known presets for an unknown name.
CompressionPreset find_compression_preset(const std::string& name);
CompressionConfig compression_preset(const std::string& name);

// The preset a chat starts with (the desktop app, pyramid-cli): recall, PyramidInfer with the
// paper's 7B knobs scoring by its last 32 tokens pooled over 7. On SmolLM2 it keeps the same
// share of the cache as the paper's scoring (reference-7b) at less perplexity (+5.1% against
// +7.0%) and recalls more of earlier turns (78% of the full cache's facts against 54%), and its
// prompt is as fast (docs/quality/smollm2-policies.md). The tools that compare policies
// (pyramid-bench, pyramid-eval) and pyramid-server start from CompressionConfig{}, the paper's.
inline constexpr const char* kChatCompressionPreset = "recall";
CompressionConfig chat_compression();  // compression_preset(kChatCompressionPreset)

} // namespace pyramid
