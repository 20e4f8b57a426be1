#include "backend/dequantized_weights.h"

#include <memory>
#include <vector>

namespace pyramid {
namespace {

WeightView decode_view(const WeightView& view, ModelWeights& out)
{
    auto buffer = std::make_shared<std::vector<float>>(static_cast<size_t>(view.elements()));
    const auto& traits = tensor_type_traits(view.type);
#pragma omp parallel for schedule(static) if (view.elements() >= (int64_t(1) << 20))
    for (int64_t r = 0; r < view.rows; ++r)
        traits.to_float(view.row(r), buffer->data() + r * view.cols, view.cols);
    WeightView decoded{view.name, TensorType::F32, view.rows, view.cols,
                       reinterpret_cast<const std::byte*>(buffer->data())};
    out.storage.push_back(std::move(buffer));
    return decoded;
}

} // namespace

ModelWeights dequantized_copy(const ModelWeights& weights)
{
    ModelWeights out;
    out.config = weights.config;
    const bool tied = weights.output.data == weights.token_embedding.data;
    out.token_embedding = decode_view(weights.token_embedding, out);
    out.output_norm = decode_view(weights.output_norm, out);
    if (tied) {
        out.output = out.token_embedding;
        out.output.name = weights.output.name;
    } else {
        out.output = decode_view(weights.output, out);
    }
    for (const LayerWeights& l : weights.layers) {
        LayerWeights d;
        for (auto [from, to] : {std::pair{&l.attn_norm, &d.attn_norm}, {&l.wq, &d.wq}, {&l.wk, &d.wk},
                                {&l.wv, &d.wv}, {&l.wo, &d.wo}, {&l.ffn_norm, &d.ffn_norm},
                                {&l.w_gate, &d.w_gate}, {&l.w_up, &d.w_up}, {&l.w_down, &d.w_down}})
            *to = decode_view(*from, out);
        out.layers.push_back(std::move(d));
    }
    return out;
}

} // namespace pyramid
