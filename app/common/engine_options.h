#pragma once
// Command-line options the tools share: sampling, KV-cache compression (policy, preset,
// JSON config, individual knobs) and the device with its cache precision. Registered on a CLI11 app; resolved after
// parsing into the core's settings (validated, with messages naming the flag).
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "backend/backend_environment.h"
#include "backend/backend_loader.h"
#include "generate/sampling_params.h"
#include "kv/compression_config.h"

namespace pyramid {

class CompressionOptions {
public:
    // With several_policies, --policy takes a comma-separated list (tools that compare them),
    // and so does the default. `default_preset` (a chat's: kChatCompressionPreset) is what
    // --preset is without the option; "" starts from CompressionConfig{}, the paper's knobs.
    explicit CompressionOptions(const std::string& default_policy, bool several_policies = false,
                                std::string default_preset = {});
    void add_to(CLI::App& app);
    // The first policy; throws pyramid::Error. --config or --preset without --policy keep the
    // policy they name (a preset's is PyramidInfer); --policy overrides it.
    CompressionConfig resolve() const;
    std::vector<CompressionConfig> resolve_all() const;  // one per policy, in the order given

private:
    CompressionConfig resolve(const std::string& policy) const;
    bool policy_named() const;

    std::vector<std::string> policies_;
    const CLI::Option* policy_option_ = nullptr;
    bool several_policies_;
    std::string preset_;
    std::string config_file_;
    std::optional<double> recent_ratio_, decay_ratio_, distance_weight_, gen_decay_ratio_, gen_compress_ratio_,
        budget_fraction_, pyramidkv_beta_;
    std::optional<std::string> decay_strategy_, gen_decay_strategy_, kv_selection_;
    std::optional<int> min_context_, sink_tokens_, interval_, chunk_, observation_window_, pooling_kernel_,
        pyramid_observation_window_, pyramid_pooling_kernel_;
    bool keep_hidden_states_ = false;
    std::vector<int> budgets_;
};

class SamplingOptions {
public:
    // `defaults`: the parameters without any option (a chat's, chat_sampling(), or the plain ones).
    explicit SamplingOptions(const SamplingParams& defaults = {}) : params_(defaults) {}
    void add_to(CLI::App& app);
    // Throws pyramid::Error for a value out of range.
    SamplingParams params() const;

private:
    SamplingParams params_;
    std::string seed_ = "0";
};

// --kv-type f32|f16|q8|q4 for keys and values alike, --kv-type-k and --kv-type-v for one of
// them (each overrides --kv-type for its half). CLI11 rejects another name, naming the known ones.
class KvTypeOption {
public:
    // `kv_default`: the types without any of the options.
    explicit KvTypeOption(KvPrecision kv_default) : default_(kv_default) {}
    // `what`: the start of --kv-type's help, saying whose cache it is.
    void add_to(CLI::App& app, const std::string& what);
    KvTypes types() const;
    // The types the options name; nullopt when none was given.
    std::optional<KvTypes> chosen() const;

private:
    KvPrecision default_;
    std::optional<std::string> kv_type_, kv_type_k_, kv_type_v_;
};

// --device, --threads and the KV cache types (KvTypeOption).
class DeviceOption {
public:
    // `kv_default`: the CPU's KV cache type without --kv-type: fp16 in the tools that run
    // what the app runs, float32 in those that measure against the reference.
    explicit DeviceOption(KvPrecision kv_default) : kv_types_(kv_default) {}
    void add_to(CLI::App& app);
    // The CPU's cache in the types given or the tool's default; a GPU's in the types given, else
    // its precision's own (fp16). With what the environment sets (backend_environment.h): the
    // tools let it choose kernels.
    BackendOptions options() const;

private:
    std::string device_ = "auto";
    int threads_ = 0;  // the CPU's; 0: OMP_NUM_THREADS where set, else one per performance core
    KvTypeOption kv_types_;
};

} // namespace pyramid
