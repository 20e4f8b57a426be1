#include "kv/compression_presets.h"

#include "util/error.h"

namespace pyramid {
namespace {

CompressionConfig snapkv_keeping(double fraction)
{
    CompressionConfig c;
    c.policy = CompressionPolicyKind::SnapKV;
    c.budget_fraction = fraction;
    return c;
}

} // namespace

std::vector<CompressionPreset> compression_presets()
{
    // The numbers are rows of docs/quality/smollm2-policies.md: perplexity from
    // ppl-vs-kv-p2048.json and pyramid-options/ppl-p2048-w4-window32-pool7.json (2048 + 128
    // tokens, 4 windows), recall from recall-extend-200.json (all 200 conversations, turn by
    // turn; the full cache recalled 106).
    CompressionConfig pooled;  // the paper's 7B knobs, scored by the last 32 tokens pooled as SnapKV
    pooled.pyramid.observation_window = 32;
    pooled.pyramid.pooling_kernel = 7;
    CompressionConfig reference_13b;
    reference_13b.pyramid.prefill_decay_ratio = 0.8;
    reference_13b.pyramid.layerwise_downsample_interval = 2;
    return {
        {"balanced", snapkv_keeping(0.75),
         PresetMeasurement{0.758, 0.006, 65.0 / 106.0,
                           "snapkv f=0.75 (perplexity 19.43 vs 19.31; recalled 65 of 200 vs 106)"}},
        {"recall", pooled,
         PresetMeasurement{0.783, 0.051, 83.0 / 106.0,
                           "pyramid d=0.9, window 32, pooled over 7 (perplexity 20.30 vs 19.31; recalled 83 of 200 "
                           "vs 106)"}},
        {"max-saving", snapkv_keeping(0.5),
         PresetMeasurement{0.515, 0.054, 24.0 / 106.0,
                           "snapkv f=0.5 (perplexity 20.35 vs 19.31; recalled 24 of 200 vs 106)"}},
        {"reference-7b", CompressionConfig{},  // the defaults are the paper's 7B knobs
         PresetMeasurement{0.783, 0.070, 57.0 / 106.0,
                           "pyramid d=0.9 (perplexity 20.66 vs 19.31; recalled 57 of 200 vs 106)"}},
        {"reference-13b", reference_13b, std::nullopt},
    };
}

std::vector<std::string> compression_preset_names()
{
    std::vector<std::string> names;
    for (const CompressionPreset& p : compression_presets())
        names.push_back(p.name);
    return names;
}

CompressionPreset find_compression_preset(const std::string& name)
{
    const std::vector<CompressionPreset> presets = compression_presets();
    for (const CompressionPreset& p : presets)
        if (p.name == name)
            return p;
    std::string known;
    for (const CompressionPreset& p : presets)
        known += (known.empty() ? "" : ", ") + p.name;
    throw Error("unknown compression preset '" + name + "' (known: " + known + ")");
}

CompressionConfig compression_preset(const std::string& name)
{
    return find_compression_preset(name).config;
}

CompressionConfig chat_compression() { return compression_preset(kChatCompressionPreset); }

} // namespace pyramid
