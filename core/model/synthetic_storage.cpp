#include "model/synthetic_storage.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "model/synthetic_value.h"
#include "util/error.h"

namespace pyramid {
namespace {

constexpr std::array kSingleTypes{TensorType::F32,  TensorType::F16,  TensorType::BF16, TensorType::Q4_0,
                                  TensorType::Q4_1, TensorType::Q5_0, TensorType::Q5_1, TensorType::Q8_0,
                                  TensorType::Q2_K, TensorType::Q3_K, TensorType::Q4_K, TensorType::Q5_K,
                                  TensorType::Q6_K};
constexpr std::array kMixBases{TensorType::Q4_K, TensorType::Q5_K};

std::string lower(std::string_view text)
{
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

std::string type_name(TensorType t) { return lower(tensor_type_traits(t).name); }

// llama.cpp's use_more_bits: which of n layers its "_M" mixes store in more bits.
bool gets_more_bits(int layer, int n_layers)
{
    return layer < n_layers / 8 || layer >= 7 * n_layers / 8 || (layer - n_layers / 8) % 3 == 2;
}

} // namespace

SyntheticStorage SyntheticStorage::parse(std::string_view name)
{
    const std::string wanted = lower(name);
    for (TensorType t : kSingleTypes)
        if (wanted == type_name(t))
            return {t, false};
    for (TensorType t : kMixBases)
        if (wanted == type_name(t) + "_m")
            return {t, true};
    std::string known;
    for (TensorType t : kSingleTypes)
        known += type_name(t) + ", ";
    for (TensorType t : kMixBases)
        known += type_name(t) + "_m" + (t == kMixBases.back() ? "" : ", ");
    throw Error("unknown weight storage '" + std::string(name) + "' (known: " + known + ")");
}

std::string SyntheticStorage::name() const { return type_name(base) + (medium_mix ? "_m" : ""); }

bool SyntheticStorage::quantized() const { return is_block_quantized(base); }

std::optional<uint32_t> SyntheticStorage::llama_file_type() const
{
    if (medium_mix)
        return base == TensorType::Q4_K ? 15u : 17u;
    switch (base) {
    case TensorType::F32: return 0u;
    case TensorType::F16: return 1u;
    case TensorType::BF16: return 32u;
    case TensorType::Q4_0: return 2u;
    case TensorType::Q4_1: return 3u;
    case TensorType::Q5_0: return 8u;
    case TensorType::Q5_1: return 9u;
    case TensorType::Q8_0: return 7u;
    case TensorType::Q2_K: return 10u;
    case TensorType::Q6_K: return 18u;
    default: return std::nullopt;
    }
}

TensorType SyntheticStorage::type_of(uint32_t tensor, int n_layers) const
{
    if (synthetic::is_norm_tensor(tensor))
        return TensorType::F32;
    if (!medium_mix)
        return base;
    if (tensor == synthetic::kOutput)
        return TensorType::Q6_K;
    if (tensor < synthetic::kFirstLayerTensor)
        return base;
    const int k = synthetic::tensor_field(tensor);
    const bool v_or_down = k == 3 || k == 8;  // LayerWeights' wv and w_down
    return v_or_down && gets_more_bits(synthetic::tensor_layer(tensor), n_layers) ? TensorType::Q6_K : base;
}

} // namespace pyramid
