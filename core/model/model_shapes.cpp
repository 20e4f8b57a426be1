#include "model/model_shapes.h"

#include "util/error.h"

namespace pyramid {
namespace {

ModelShape llama_shape(std::string name, std::string description, int dim, int ffn_dim, int n_layers, int n_heads,
                       int context_length)
{
    ModelConfig c;
    c.architecture = "llama";
    c.name = name;
    c.n_vocab = 32000;  // the LLaMA-2 tokenizer's vocabulary, for every shape
    c.dim = dim;
    c.ffn_dim = ffn_dim;
    c.n_layers = n_layers;
    c.n_heads = n_heads;
    c.n_kv_heads = n_heads;
    c.head_dim = dim / n_heads;
    c.context_length = context_length;
    c.rope_theta = 10000.0f;
    c.rms_eps = 1e-5f;
    c.rope_layout = RopeLayout::RotateHalf;
    c.tied_output = false;
    return {std::move(name), std::move(description), c};
}

} // namespace

const std::vector<ModelShape>& model_shapes()
{
    static const std::vector<ModelShape> shapes = {
        llama_shape("tiny", "24M parameters (llama2.c's stories15M layers, untied output), for quick CPU runs", 288, 768, 6, 6, 1024),
        llama_shape("small", "168M parameters, for CPU benchmarks", 1024, 2816, 8, 16, 2048),
        llama_shape("llama2-7b", "LLaMA-2 7B: 6.74B parameters, 12.6 GiB in fp16", 4096, 11008, 32, 32, 4096),
        llama_shape("llama2-13b", "LLaMA-2 13B: 13.0B parameters, 24.2 GiB in fp16", 5120, 13824, 40, 40, 4096),
    };
    return shapes;
}

const ModelShape& find_model_shape(std::string_view name)
{
    std::string known;
    for (const ModelShape& s : model_shapes()) {
        if (s.name == name)
            return s;
        known += (known.empty() ? "" : ", ") + s.name;
    }
    throw Error("unknown model shape '" + std::string(name) + "' (known: " + known + ")");
}

} // namespace pyramid
