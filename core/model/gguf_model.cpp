#include "model/gguf_model.h"

#include <cmath>
#include <limits>
#include <string>

#include "model/gguf_vocab.h"
#include "model/weight_assembly.h"
#include "util/error.h"
#include "util/json_input.h"

namespace pyramid {
namespace {

[[noreturn]] void fail(const GgufFile& file, const std::string& what)
{
    throw Error(file.path().string() + ": " + what);
}

int positive_int(const GgufFile& file, const std::string& key, std::optional<int> fallback = std::nullopt)
{
    const auto v = file.get_int(key);
    if (!v) {
        if (fallback)
            return *fallback;
        fail(file, "missing metadata '" + key + "'");
    }
    if (*v <= 0 || *v > std::numeric_limits<int>::max())
        fail(file, "metadata '" + key + "' should be a positive integer, found " + std::to_string(*v));
    return static_cast<int>(*v);
}

float positive_float(const GgufFile& file, const std::string& key, std::optional<float> fallback = std::nullopt)
{
    const auto v = file.get_float(key);
    if (!v) {
        if (fallback)
            return *fallback;
        fail(file, "missing metadata '" + key + "'");
    }
    if (!(*v > 0.0) || *v > std::numeric_limits<float>::max())
        fail(file, "metadata '" + key + "' should be a positive number, found " + std::to_string(*v));
    return static_cast<float>(*v);
}

std::string gguf_name(WeightRole role, int layer)
{
    const std::string blk = "blk." + std::to_string(layer) + ".";
    switch (role) {
    case WeightRole::TokenEmbedding: return "token_embd.weight";
    case WeightRole::OutputNorm: return "output_norm.weight";
    case WeightRole::Output: return "output.weight";
    case WeightRole::AttnNorm: return blk + "attn_norm.weight";
    case WeightRole::Wq: return blk + "attn_q.weight";
    case WeightRole::Wk: return blk + "attn_k.weight";
    case WeightRole::Wv: return blk + "attn_v.weight";
    case WeightRole::Wo: return blk + "attn_output.weight";
    case WeightRole::FfnNorm: return blk + "ffn_norm.weight";
    case WeightRole::Gate: return blk + "ffn_gate.weight";
    case WeightRole::Up: return blk + "ffn_up.weight";
    case WeightRole::Down: return blk + "ffn_down.weight";
    }
    return {};
}

} // namespace

ModelConfig read_gguf_config(const GgufFile& file)
{
    const auto arch = file.get_string("general.architecture");
    if (!arch)
        fail(file, "missing metadata 'general.architecture'");
    if (*arch != "llama")
        fail(file, "unsupported architecture " + json_excerpt(std::string(*arch)) + ": only llama models are supported");
    // llama.cpp's gguf-split writes a model as several files; each holds only some tensors.
    if (const auto parts = file.get_int("split.count"); parts && *parts > 1)
        fail(file, "this is one of " + std::to_string(*parts) +
                       " parts of a split model; merge them into one file first (llama-gguf-split --merge)");

    ModelConfig c;
    c.architecture = "llama";
    c.name = std::string(file.get_string("general.name").value_or(file.path().stem().string()));
    c.context_length = positive_int(file, "llama.context_length");
    c.dim = positive_int(file, "llama.embedding_length");
    c.n_layers = positive_int(file, "llama.block_count");
    c.ffn_dim = positive_int(file, "llama.feed_forward_length");
    c.n_heads = positive_int(file, "llama.attention.head_count");
    c.n_kv_heads = positive_int(file, "llama.attention.head_count_kv", c.n_heads);
    c.rope_theta = positive_float(file, "llama.rope.freq_base", 10000.0f);
    c.rms_eps = positive_float(file, "llama.attention.layer_norm_rms_epsilon");
    c.head_dim = c.dim / c.n_heads;
    c.rope_layout = RopeLayout::Interleaved;

    // Variants this engine would run silently wrong are refused instead.
    if (const auto rot = file.get_int("llama.rope.dimension_count"); rot && *rot != c.head_dim)
        fail(file, "llama.rope.dimension_count " + std::to_string(*rot) + " differs from the head size " +
                       std::to_string(c.head_dim) + "; partial RoPE is not supported");
    if (const auto scaling = file.get_string("llama.rope.scaling.type"); scaling && *scaling != "none")
        fail(file, "llama.rope.scaling.type is " + json_excerpt(std::string(*scaling)) + "; scaled RoPE is not supported");
    if (const auto linear = file.get_float("llama.rope.scale_linear"); linear && *linear != 1.0)
        fail(file, "llama.rope.scale_linear is " + std::to_string(*linear) + "; scaled RoPE is not supported");
    if (file.get_int("llama.expert_count").value_or(0) > 0)
        fail(file, "mixture-of-experts models (llama.expert_count) are not supported");

    const GgufTensorInfo* embd = file.find_tensor("token_embd.weight");
    if (!embd)
        fail(file, "missing tensor 'token_embd.weight'");
    if (embd->n_dims != 2 || embd->ne[1] > std::numeric_limits<int>::max())
        fail(file, "tensor 'token_embd.weight' should be a matrix of [" + std::to_string(c.dim) + ", vocabulary size]");
    c.n_vocab = static_cast<int>(embd->ne[1]);
    if (const auto v = file.get_int("llama.vocab_size"); v && *v != c.n_vocab)
        fail(file, "llama.vocab_size " + std::to_string(*v) + " differs from the " + std::to_string(c.n_vocab) +
                       " rows of token_embd.weight");

    validate_model_config(c, file.path().string());
    return c;
}

LoadedModel load_gguf_model(const std::filesystem::path& path, const std::function<void(double)>& progress)
{
    const GgufFile file = GgufFile::open(path);
    LoadedModel out;
    out.format = "gguf";
    ModelConfig config = read_gguf_config(file);
    out.vocab = read_gguf_vocab(file);
    out.chat_template = std::string(file.get_string("tokenizer.chat_template").value_or(""));
    if (out.vocab && out.vocab->tokens.size() != static_cast<size_t>(config.n_vocab))
        fail(file, "the embedded vocabulary has " + std::to_string(out.vocab->tokens.size()) + " tokens but token_embd.weight has " +
                       std::to_string(config.n_vocab) + " rows");

    TensorSource source;
    source.file = path.string();
    source.expected_name = gguf_name;
    for (const GgufTensorInfo& t : file.tensors())
        source.stored_names.push_back(t.name);
    source.find = [&file](WeightRole role, int layer) -> std::optional<StoredTensor> {
        const GgufTensorInfo* t = file.find_tensor(gguf_name(role, layer));
        if (!t)
            return std::nullopt;
        StoredTensor s{t->name, t->type, {}, t->data};
        for (int d = t->n_dims - 1; d >= 0; --d)  // ggml lists the contiguous dimension first
            s.dims.push_back(t->ne[d]);
        return s;
    };
    out.weights = assemble_weights(std::move(config), source, progress);
    out.weights.storage.push_back(file.mapping());
    return out;
}

} // namespace pyramid
