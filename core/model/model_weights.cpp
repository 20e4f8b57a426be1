#include "model/model_weights.h"

namespace pyramid {

std::vector<const WeightView*> stored_views(const ModelWeights& w)
{
    std::vector<const WeightView*> out = {&w.token_embedding, &w.output_norm};
    if (!w.config.tied_output)
        out.push_back(&w.output);
    for (const LayerWeights& l : w.layers)
        out.insert(out.end(), {&l.attn_norm, &l.wq, &l.wk, &l.wv, &l.wo, &l.ffn_norm, &l.w_gate, &l.w_up, &l.w_down});
    return out;
}

} // namespace pyramid
