#include "hf_builder.h"

#include <nlohmann/json.hpp>

#include "model/safetensors_file.h"

namespace pyramid::test {

std::vector<SafetensorsEntry> safetensors_entries(const SafetensorsFile& file)
{
    std::vector<SafetensorsEntry> out;
    for (const auto& t : file.tensors())
        out.push_back({t.name, t.dtype, t.shape, std::string(reinterpret_cast<const char*>(t.data), t.nbytes)});
    return out;
}

std::string safetensors_bytes(const std::vector<SafetensorsEntry>& entries, bool misaligned)
{
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    header["__metadata__"] = {{"format", "pt"}};
    std::string data;
    for (const auto& e : entries) {
        header[e.name] = {{"dtype", e.dtype}, {"shape", e.shape}, {"data_offsets", {data.size(), data.size() + e.bytes.size()}}};
        data += e.bytes;
    }
    std::string text = header.dump();
    while ((8 + text.size()) % 8 != (misaligned ? 1u : 0u))
        text += ' ';
    return safetensors_raw(text, data);
}

std::string safetensors_raw(const std::string& header, const std::string& data)
{
    const uint64_t n = header.size();
    std::string out(reinterpret_cast<const char*>(&n), 8);
    return out + header + data;
}

std::vector<SafetensorsEntry> tiny_llama_hf_entries(int layers)
{
    constexpr int64_t dim = 32, ffn = 64, vocab = 8, kv_dim = 16;
    std::vector<SafetensorsEntry> out;
    float next = 0.0f;
    const auto add = [&](const std::string& name, std::vector<int64_t> shape) {
        int64_t n = 1;
        for (int64_t d : shape)
            n *= d;
        std::vector<float> v(static_cast<size_t>(n));
        for (auto& x : v)
            x = (next += 0.001f);
        out.push_back({name, "F32", std::move(shape), std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4)});
    };
    add("model.embed_tokens.weight", {vocab, dim});
    add("model.norm.weight", {dim});
    add("lm_head.weight", {vocab, dim});
    for (int i = 0; i < layers; ++i) {
        const std::string p = "model.layers." + std::to_string(i) + ".";
        add(p + "input_layernorm.weight", {dim});
        add(p + "self_attn.q_proj.weight", {dim, dim});
        add(p + "self_attn.k_proj.weight", {kv_dim, dim});
        add(p + "self_attn.v_proj.weight", {kv_dim, dim});
        add(p + "self_attn.o_proj.weight", {dim, dim});
        add(p + "post_attention_layernorm.weight", {dim});
        add(p + "mlp.gate_proj.weight", {ffn, dim});
        add(p + "mlp.up_proj.weight", {ffn, dim});
        add(p + "mlp.down_proj.weight", {dim, ffn});
    }
    return out;
}

std::string tiny_llama_hf_config(int layers)
{
    return nlohmann::json{
        {"architectures", {"LlamaForCausalLM"}},
        {"model_type", "llama"},
        {"hidden_size", 32},
        {"intermediate_size", 64},
        {"num_hidden_layers", layers},
        {"num_attention_heads", 4},
        {"num_key_value_heads", 2},
        {"vocab_size", 8},
        {"max_position_embeddings", 128},
        {"rms_norm_eps", 1e-5},
        {"rope_theta", 10000.0},
        {"hidden_act", "silu"},
        {"tie_word_embeddings", false},
        {"rope_scaling", nullptr},
    }.dump(2);
}

} // namespace pyramid::test
