#include "gguf_builder.h"

#include <algorithm>
#include <cmath>

namespace pyramid::test {

void GgufBuilder::add_raw(const std::string& key, uint32_t type, const std::string& payload)
{
    Bytes b;
    b.u32(type);
    b.data += payload;
    entries.emplace_back(key, b.data);
}

void GgufBuilder::add_string(const std::string& key, const std::string& value)
{
    Bytes b;
    b.str(value);
    add_raw(key, 8, b.data);
}

void GgufBuilder::add_u32(const std::string& key, uint32_t value)
{
    Bytes b;
    b.u32(value);
    add_raw(key, 4, b.data);
}

void GgufBuilder::add_f32(const std::string& key, float value)
{
    Bytes b;
    b.f32(value);
    add_raw(key, 6, b.data);
}

void GgufBuilder::add_bool(const std::string& key, bool value)
{
    add_raw(key, 7, std::string(1, value ? '\1' : '\0'));
}

void GgufBuilder::add_string_array(const std::string& key, const std::vector<std::string>& values)
{
    Bytes b;
    b.u32(8);
    b.u64(values.size());
    for (const auto& v : values)
        b.str(v);
    add_raw(key, 9, b.data);
}

void GgufBuilder::add_f32_array(const std::string& key, const std::vector<float>& values)
{
    Bytes b;
    b.u32(6);
    b.u64(values.size());
    for (float v : values)
        b.f32(v);
    add_raw(key, 9, b.data);
}

void GgufBuilder::add_i32_array(const std::string& key, const std::vector<int32_t>& values)
{
    Bytes b;
    b.u32(5);
    b.u64(values.size());
    for (int32_t v : values)
        b.u32(static_cast<uint32_t>(v));
    add_raw(key, 9, b.data);
}

void GgufBuilder::remove_key(const std::string& key)
{
    std::erase_if(entries, [&](const auto& e) { return e.first == key; });
}

GgufTensorSpec* GgufBuilder::tensor(const std::string& name)
{
    for (auto& t : tensors)
        if (t.name == name)
            return &t;
    return nullptr;
}

void GgufBuilder::remove_tensor(const std::string& name)
{
    std::erase_if(tensors, [&](const GgufTensorSpec& t) { return t.name == name; });
}

std::string GgufBuilder::build() const
{
    Bytes b;
    b.raw("GGUF", 4);
    b.u32(version);
    b.u64(n_tensors_override.value_or(tensors.size()));
    b.u64(n_kv_override.value_or(entries.size()));
    for (const auto& [key, encoded] : entries) {
        b.str(key);
        b.data += encoded;
    }
    const auto pad = [&](uint64_t n) { return (n + alignment - 1) / alignment * alignment; };
    uint64_t offset = 0;
    for (const auto& t : tensors) {
        b.str(t.name);
        b.u32(t.n_dims.value_or(static_cast<uint32_t>(t.ne.size())));
        for (uint64_t n : t.ne)
            b.u64(n);
        b.u32(t.type);
        b.u64(t.offset.value_or(offset));
        offset = pad(offset + t.bytes.size());
    }
    b.data.resize(pad(b.data.size()), '\0');
    for (const auto& t : tensors) {
        b.data += t.bytes;
        b.data.resize(pad(b.data.size()), '\0');
    }
    return b.data;
}

std::string f32_bytes(const std::vector<float>& values)
{
    return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}

GgufBuilder tiny_llama_gguf(int layers)
{
    constexpr uint64_t dim = 32, ffn = 64, vocab = 8, heads = 4, kv_heads = 2, head_dim = dim / heads;
    GgufBuilder g;
    g.add_string("general.architecture", "llama");
    g.add_string("general.name", "tiny");
    g.add_u32("llama.context_length", 128);
    g.add_u32("llama.embedding_length", dim);
    g.add_u32("llama.block_count", static_cast<uint32_t>(layers));
    g.add_u32("llama.feed_forward_length", ffn);
    g.add_u32("llama.attention.head_count", heads);
    g.add_u32("llama.attention.head_count_kv", kv_heads);
    g.add_u32("llama.rope.dimension_count", head_dim);
    g.add_f32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
    g.add_f32("llama.rope.freq_base", 10000.0f);
    g.add_string("tokenizer.ggml.model", "llama");
    g.add_string_array("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "\xE2\x96\x81" "a", "b", "c", "d", "e"});
    g.add_f32_array("tokenizer.ggml.scores", {0, 0, 0, -1, -2, -3, -4, -5});
    g.add_i32_array("tokenizer.ggml.token_type", {2, 3, 3, 1, 1, 1, 1, 1});
    g.add_u32("tokenizer.ggml.bos_token_id", 1);
    g.add_u32("tokenizer.ggml.eos_token_id", 2);
    g.add_u32("tokenizer.ggml.unknown_token_id", 0);
    g.add_bool("tokenizer.ggml.add_bos_token", true);

    uint32_t seed = 1;
    const auto values = [&](uint64_t n, float base) {
        std::vector<float> v(n);
        for (auto& x : v) {
            seed = seed * 1664525u + 1013904223u;
            x = base + static_cast<float>(static_cast<int>(seed >> 9) % 2001 - 1000) / 50000.0f;
        }
        return f32_bytes(v);
    };
    const auto matrix = [&](const std::string& name, uint64_t cols, uint64_t rows) {
        g.add_tensor({name, {cols, rows}, 0, values(cols * rows, 0.0f), {}, {}});
    };
    const auto norm = [&](const std::string& name) { g.add_tensor({name, {dim}, 0, values(dim, 1.0f), {}, {}}); };

    matrix("token_embd.weight", dim, vocab);
    norm("output_norm.weight");
    matrix("output.weight", dim, vocab);
    for (int i = 0; i < layers; ++i) {
        const std::string blk = "blk." + std::to_string(i) + ".";
        norm(blk + "attn_norm.weight");
        matrix(blk + "attn_q.weight", dim, heads * head_dim);
        matrix(blk + "attn_k.weight", dim, kv_heads * head_dim);
        matrix(blk + "attn_v.weight", dim, kv_heads * head_dim);
        matrix(blk + "attn_output.weight", heads * head_dim, dim);
        norm(blk + "ffn_norm.weight");
        matrix(blk + "ffn_gate.weight", dim, ffn);
        matrix(blk + "ffn_up.weight", dim, ffn);
        matrix(blk + "ffn_down.weight", ffn, dim);
    }
    return g;
}

} // namespace pyramid::test
