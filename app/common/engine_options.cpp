#include "engine_options.h"

#include <algorithm>
#include <charconv>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backend/cpu_cores.h"
#include "generate/sampler.h"
#include "kv/compression_presets.h"
#include "util/error.h"
#include "util/text_input.h"

namespace pyramid {

CompressionOptions::CompressionOptions(const std::string& default_policy, bool several_policies,
                                       std::string default_preset)
    : several_policies_(several_policies), preset_(std::move(default_preset))
{
    std::stringstream list(default_policy);
    for (std::string policy; std::getline(list, policy, ',');)
        policies_.push_back(policy);
}

void CompressionOptions::add_to(CLI::App& app)
{
    const std::string group = "KV-cache compression";
    std::vector<std::string> names;
    for (CompressionPolicyKind kind : compression_policy_kinds())
        names.push_back(to_string(kind));
    const std::string choices = fmt::format("{} (docs/policies.md)", fmt::join(names, ", "));
    CLI::Option* policy =
        app.add_option("--policy", policies_, several_policies_ ? choices + "; several: a,b" : choices)
            ->check(CLI::IsMember(names))
            ->capture_default_str()
            ->group(group);
    policy_option_ = policy;
    if (several_policies_)
        policy->delimiter(',');
    else
        policy->expected(1);
    CLI::Option* preset = app.add_option("--preset", preset_, fmt::format("{} (docs/quality/smollm2-policies.md)",
                                                                           fmt::join(compression_preset_names(), ", ")))
                              ->group(group);
    if (!preset_.empty())
        preset->capture_default_str();
    app.add_option("--config", config_file_, "JSON compression config (golden-file form)")
        ->check(CLI::ExistingFile)
        ->group(group);
    app.add_option("--recent-ratio", recent_ratio_, "recent window as a fraction of the prompt")->group(group);
    app.add_option("--decay-ratio", decay_ratio_, "prefill retention ratio at the deepest layer")->group(group);
    app.add_option("--decay-strategy", decay_strategy_, "cosine, linear or constant")->group(group);
    app.add_option("--min-context", min_context_, "never shrink the context below this")->group(group);
    app.add_option("--sink-tokens", sink_tokens_, "first tokens always kept")->group(group);
    app.add_option("--distance-weight", distance_weight_, "weight of the newest recent row")->group(group);
    app.add_option("--interval", interval_, "select at every n-th layer")->group(group);
    app.add_option("--gen-decay-ratio", gen_decay_ratio_, "generation-phase schedule end value")->group(group);
    app.add_option("--gen-decay-strategy", gen_decay_strategy_, "cosine, linear or constant")->group(group);
    app.add_option("--gen-compress-ratio", gen_compress_ratio_, "fraction of a generated chunk kept")->group(group);
    app.add_option("--chunk", chunk_, "generated entries compressed at once (E)")->group(group);
    app.add_option("--pyramid-observation-window", pyramid_observation_window_,
                   "pyramid: score the prompt by its last N tokens' attention (0: the whole recent window)")
        ->group(group);
    app.add_option("--pyramid-pooling-kernel", pyramid_pooling_kernel_,
                   "pyramid: average the prompt's scores over this many entries (odd; 1: none)")
        ->group(group);
    app.add_flag("--keep-hidden-states", keep_hidden_states_,
                 "pyramid: compute every token at every layer, trim only the caches (same lengths)")
        ->group(group);
    app.add_option("--budgets", budgets_, "baselines: entries per layer (default: PyramidInfer's)")
        ->delimiter(',')
        ->group(group);
    app.add_option("--budget-fraction", budget_fraction_,
                   "baselines: keep this fraction of a full cache, on average per layer (default: PyramidInfer's bytes)")
        ->group(group);
    app.add_option("--observation-window", observation_window_, "snapkv/pyramidkv: prompt tokens whose attention selects")
        ->group(group);
    app.add_option("--pooling-kernel", pooling_kernel_, "snapkv/pyramidkv: entries the scores are averaged over (odd)")
        ->group(group);
    app.add_option("--pyramidkv-beta", pyramidkv_beta_, "pyramidkv: the top layer keeps 1/beta of the average")
        ->group(group);
    app.add_option("--kv-selection", kv_selection_,
                   "snapkv/pyramidkv: per-layer (default; every backend) or per-head (each KV head its own "
                   "entries, as the papers; CPU backend only)")
        ->check(CLI::IsMember({to_string(KvSelection::PerLayer), to_string(KvSelection::PerHead)}))
        ->group(group);
}

CompressionConfig CompressionOptions::resolve() const
{
    return resolve(policies_.front());
}

bool CompressionOptions::policy_named() const
{
    // --config or --preset alone keep their own policy; --policy, given or by default, otherwise.
    return (policy_option_ && policy_option_->count() > 0) || (config_file_.empty() && preset_.empty());
}

std::vector<CompressionConfig> CompressionOptions::resolve_all() const
{
    if (!policy_named())
        return {resolve(policies_.front())};
    std::vector<CompressionConfig> configs;
    for (const std::string& policy : policies_)
        configs.push_back(resolve(policy));
    return configs;
}

CompressionConfig CompressionOptions::resolve(const std::string& policy) const
{
    CompressionConfig config;
    if (!config_file_.empty()) {
        // A compression config is a few hundred bytes; 1 MiB is generous.
        config = compression_config_from_json(
            read_text_file(config_file_, size_t{1} << 20, "the compression config " + config_file_));
    } else if (!preset_.empty()) {
        config = compression_preset(preset_);
    }
    if (policy_named())
        config.policy = parse_policy_kind(policy);
    PyramidSettings& p = config.pyramid;
    if (recent_ratio_) p.recent_ratio = *recent_ratio_;
    if (decay_ratio_) p.prefill_decay_ratio = *decay_ratio_;
    if (decay_strategy_) p.prefill_decay_strategy = parse_decay_schedule(*decay_strategy_);
    if (min_context_) p.min_context_length = *min_context_;
    if (sink_tokens_) p.sink_tokens = *sink_tokens_;
    if (distance_weight_) p.distance_weight = *distance_weight_;
    if (interval_) p.layerwise_downsample_interval = *interval_;
    if (gen_decay_ratio_) p.gen_decay_ratio = *gen_decay_ratio_;
    if (gen_decay_strategy_) p.gen_decay_strategy = parse_decay_schedule(*gen_decay_strategy_);
    if (gen_compress_ratio_) p.gen_compress_ratio = *gen_compress_ratio_;
    if (chunk_) p.exceed_length_to_compress = *chunk_;
    if (pyramid_observation_window_) p.observation_window = *pyramid_observation_window_;
    if (pyramid_pooling_kernel_) p.pooling_kernel = *pyramid_pooling_kernel_;
    if (keep_hidden_states_) p.keep_hidden_states = true;
    if (!budgets_.empty()) config.layer_budgets = budgets_;
    if (budget_fraction_) config.budget_fraction = *budget_fraction_;
    if (observation_window_) config.observation_window = *observation_window_;
    if (pooling_kernel_) config.pooling_kernel = *pooling_kernel_;
    if (pyramidkv_beta_) config.pyramidkv_beta = *pyramidkv_beta_;
    if (kv_selection_) config.kv_selection = parse_kv_selection(*kv_selection_);
    config.validate();
    return config;
}

void SamplingOptions::add_to(CLI::App& app)
{
    const std::string group = "Sampling";
    // Ranges are checked by Sampler::check_params (in params()), which also refuses NaN.
    app.add_option("--temperature", params_.temperature, "0 for greedy")->capture_default_str()->group(group);
    app.add_option("--top-k", params_.top_k, "0 or less: off")->capture_default_str()->group(group);
    app.add_option("--top-p", params_.top_p, "from 0 to 1; 1: off")->capture_default_str()->group(group);
    app.add_option("--min-p", params_.min_p, "from 0 to 1; 0: off")->capture_default_str()->group(group);
    // A penalty divides positive logits: 0 would make every seen token infinitely likely.
    app.add_option("--repeat-penalty", params_.repetition_penalty, "above 0; 1: off")
        ->capture_default_str()
        ->group(group);
    app.add_option("--frequency-penalty", params_.frequency_penalty,
                   "subtracted from a recent token's logit for each time it occurred; 0: off")
        ->capture_default_str()
        ->group(group);
    app.add_option("--presence-penalty", params_.presence_penalty,
                   "subtracted once from the logit of each recent token; 0: off")
        ->capture_default_str()
        ->group(group);
    app.add_option("--repeat-last-n", params_.repetition_window, "recent tokens the penalties look at")
        ->capture_default_str()
        ->group(group);
    app.add_option("--seed", seed_, "0 or less: random")->capture_default_str()->group(group);
}

namespace {

// 0 or a negative number (llama.cpp's -1) asks for a random seed (0); any other whole number up
// to 2^64 - 1 is the seed itself.
uint64_t parse_seed(const std::string& text)
{
    const char* end = text.data() + text.size();
    if (int64_t negative = 0; text.starts_with('-')) {
        const auto [at, error] = std::from_chars(text.data(), end, negative);
        if (error == std::errc() && at == end)
            return 0;
    } else if (uint64_t seed = 0; !text.empty()) {
        const auto [at, error] = std::from_chars(text.data(), end, seed);
        if (error == std::errc() && at == end)
            return seed;
    }
    throw Error("--seed must be a whole number from 0 to 18446744073709551615, or negative for a random one, not '" +
                text + "'");
}

} // namespace

SamplingParams SamplingOptions::params() const
{
    SamplingParams p = params_;
    p.top_k = std::max(p.top_k, 0);  // llama.cpp's -1 means off too
    p.seed = parse_seed(seed_);
    Sampler::check_params(p);
    return p;
}

void DeviceOption::add_to(CLI::App& app)
{
    app.add_option("--device", device_, "auto, cpu or cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
        ->capture_default_str();
    app.add_option("--threads", threads_,
                   "CPU threads (default: one per physical core of the fastest kind, " +
                       std::to_string(default_cpu_threads(cpu_cores())) + " here; OMP_NUM_THREADS where set)")
        ->check(CLI::Range(1, 4096));
    kv_types_.add_to(app, "how the KV cache is stored (without it a GPU stores f16)");
}

BackendOptions DeviceOption::options() const
{
    BackendOptions options{parse_backend_preference(device_), kv_types_.types()};
    options.cuda.kv_types = kv_types_.chosen();
    options.cpu_threads = threads_;
    return with_environment(options);
}

void KvTypeOption::add_to(CLI::App& app, const std::string& what)
{
    const auto known = CLI::IsMember({"f32", "f16", "q8", "q4"});
    app.add_option("--kv-type", kv_type_,
                   what + ", keys and values: f32 (exact), f16 (half the memory), q8 (8-bit, 0.27x f32) or "
                          "q4 (4-bit, 0.14x f32)")
        ->check(known)
        ->default_str(std::string(kv_precision_name(default_)));
    app.add_option("--kv-type-k", kv_type_k_, "the keys' type, instead of --kv-type's (f32, f16, q8, q4)")
        ->check(known);
    app.add_option("--kv-type-v", kv_type_v_, "the values' type, instead of --kv-type's (f32, f16, q8, q4)")
        ->check(known);
}

KvTypes KvTypeOption::types() const
{
    const KvPrecision both = kv_type_ ? parse_kv_precision(*kv_type_) : default_;
    return {kv_type_k_ ? parse_kv_precision(*kv_type_k_) : both, kv_type_v_ ? parse_kv_precision(*kv_type_v_) : both};
}

std::optional<KvTypes> KvTypeOption::chosen() const
{
    if (!kv_type_ && !kv_type_k_ && !kv_type_v_)
        return std::nullopt;
    return types();
}

} // namespace pyramid
