#pragma once
// Which KV-cache compression runs and with which knobs. The PyramidInfer knobs and their
// meaning follow docs/pyramidinfer.md (the project's contract with the golden files).
#include <optional>
#include <string>
#include <vector>

namespace pyramid {

enum class CompressionPolicyKind { Full, Pyramid, Local, H2O, SnapKV, PyramidKV };
enum class DecaySchedule { Cosine, Linear, Constant };
// Whether a policy keeps one set of entries per layer for all KV heads, or lets each KV head
// (the group of query heads sharing it) keep its own (docs/policies.md, "Per head or per layer").
enum class KvSelection { PerLayer, PerHead };

struct PyramidSettings {
    double recent_ratio = 0.2;
    double prefill_decay_ratio = 0.9;
    DecaySchedule prefill_decay_strategy = DecaySchedule::Cosine;
    int min_context_length = 64;
    int layerwise_downsample_interval = 1;
    int sink_tokens = 4;
    double distance_weight = 1.2;
    double gen_decay_ratio = 0.1;
    DecaySchedule gen_decay_strategy = DecaySchedule::Cosine;
    double gen_compress_ratio = 0.9;
    int exceed_length_to_compress = 16;
    // Options beyond the paper, off by default (docs/policies.md, "PyramidInfer's options"):
    // the prompt's context is scored by the attention of its last `observation_window` tokens
    // only (0: the whole recent window votes, as in the paper; at most the window is used), the
    // scores average-pooled over `pooling_kernel` neighbouring candidates (1: none). The recent
    // window is kept either way; generation-phase chunks are still scored by the whole window.
    int observation_window = 0;
    int pooling_kernel = 1;
    // Every token's hidden state goes on to every layer; the selections only trim the caches,
    // each layer keeping the tokens the paper's rule would have passed into it (same lengths).
    bool keep_hidden_states = false;

    bool operator==(const PyramidSettings&) const = default;
};

struct CompressionConfig {
    CompressionPolicyKind policy = CompressionPolicyKind::Pyramid;
    PyramidSettings pyramid;
    // Baselines: entries each layer may keep after prefill. Empty: derived from what a
    // PyramidInfer run with `pyramid` keeps for the same prompt (equal KV bytes).
    std::vector<int> layer_budgets;
    // Baselines without layer_budgets: each keeps this fraction of a full cache (of the tokens
    // seen so far), on average over the layers. 0: PyramidInfer's bytes, as above.
    double budget_fraction = 0.0;
    // H2O keeps this fraction of its budget (one entry at least) as the most recent entries;
    // local keeps the sinks and fills the rest with recent ones (StreamingLLM).
    double baseline_recent_fraction = 0.5;
    // SnapKV and PyramidKV (docs/policies.md): the prompt's last `observation_window` tokens
    // vote with their attention, smoothed over `pooling_kernel` neighbouring entries; they
    // stay in the cache themselves.
    int observation_window = 32;
    int pooling_kernel = 7;
    // PyramidKV: the top layer keeps 1/beta of the average selected budget, the bottom layer
    // the rest of twice the average, the layers between an arithmetic series.
    double pyramidkv_beta = 20.0;
    // SnapKV and PyramidKV: PerHead ranks the entries for each KV head by its own group's
    // attention, as their papers do; it needs a backend whose cache keeps entries per head (the
    // CPU's; the CUDA backend refuses it). PerLayer, the default, keeps one set for all heads,
    // which every backend runs. The other policies select per layer only.
    KvSelection kv_selection = KvSelection::PerLayer;

    // Throws pyramid::Error naming the first invalid field.
    void validate() const;
    // validate(), and layer_budgets (when given) has one entry per layer of the model.
    void validate_for(int n_layers) const;

    static CompressionConfig full_cache();

    bool operator==(const CompressionConfig&) const = default;
};

std::vector<CompressionPolicyKind> compression_policy_kinds();  // every policy, in menu order
std::string to_string(CompressionPolicyKind kind);
std::string to_string(DecaySchedule schedule);
std::string to_string(KvSelection selection);  // "per-layer", "per-head"
CompressionPolicyKind parse_policy_kind(const std::string& text);  // throws
DecaySchedule parse_decay_schedule(const std::string& text);         // throws
KvSelection parse_kv_selection(const std::string& text);             // throws

// JSON in the golden files' "config" object form, plus "policy" and "layer_budgets".
std::string compression_config_to_json(const CompressionConfig& config);
CompressionConfig compression_config_from_json(const std::string& json);  // validates; throws

} // namespace pyramid
