#include "kv/compression_policy.h"

#include "kv/h2o_policy.h"
#include "kv/local_policy.h"
#include "kv/pyramid_policy.h"
#include "kv/snapkv_policy.h"

namespace pyramid {
namespace {

class FullPolicy final : public CompressionPolicy {
public:
    void begin_prefill(int, int) override {}
    std::optional<AttentionProbe> prefill_probe(int, int) override { return std::nullopt; }
    PrefillDecision after_prefill_layer(int, int, int, const std::vector<float>&) override { return {}; }
    std::optional<AttentionProbe> decode_probe(int) override { return std::nullopt; }
    std::optional<std::vector<int>> after_decode_layer(int, int, const std::vector<float>&) override
    {
        return std::nullopt;
    }
    void entries_removed(int, const std::vector<int>&) override {}
};

} // namespace

std::unique_ptr<CompressionPolicy> make_compression_policy(const CompressionConfig& config, int n_layers)
{
    config.validate();
    switch (config.policy) {
    case CompressionPolicyKind::Full: return std::make_unique<FullPolicy>();
    case CompressionPolicyKind::Pyramid: return std::make_unique<PyramidPolicy>(config.pyramid, n_layers);
    case CompressionPolicyKind::Local: return std::make_unique<LocalPolicy>(config, n_layers);
    case CompressionPolicyKind::H2O: return std::make_unique<H2OPolicy>(config, n_layers);
    case CompressionPolicyKind::SnapKV:
    case CompressionPolicyKind::PyramidKV: return std::make_unique<SnapKVPolicy>(config, n_layers);
    }
    return std::make_unique<FullPolicy>();
}

} // namespace pyramid
