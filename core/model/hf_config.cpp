#include "model/hf_config.h"

#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/json_input.h"
#include "util/text_input.h"

namespace pyramid {
namespace {

class ConfigReader {
public:
    ConfigReader(const std::filesystem::path& path, const nlohmann::json& json) : path_(path), json_(json) {}

    [[noreturn]] void fail(const std::string& what) const { throw Error(path_.string() + ": " + what); }

    bool has(const char* key) const { return json_.contains(key) && !json_.at(key).is_null(); }

    int positive_int(const char* key) const
    {
        if (!has(key))
            fail("missing \"" + std::string(key) + "\"");
        const auto& v = json_.at(key);
        if (!v.is_number_integer() || v.get<int64_t>() <= 0 || v.get<int64_t>() > std::numeric_limits<int>::max())
            fail("\"" + std::string(key) + "\" should be a positive integer, found " + json_excerpt(v));
        return static_cast<int>(v.get<int64_t>());
    }

    int positive_int(const char* key, int fallback) const { return has(key) ? positive_int(key) : fallback; }

    float positive_float(const char* key, float fallback) const
    {
        if (!has(key))
            return fallback;
        const auto& v = json_.at(key);
        if (!v.is_number() || !(v.get<double>() > 0.0) || v.get<double>() > std::numeric_limits<float>::max())
            fail("\"" + std::string(key) + "\" should be a positive number, found " + json_excerpt(v));
        return static_cast<float>(v.get<double>());
    }

    bool boolean(const char* key, bool fallback) const
    {
        if (!has(key))
            return fallback;
        const auto& v = json_.at(key);
        if (!v.is_boolean())
            fail("\"" + std::string(key) + "\" should be true or false, found " + json_excerpt(v));
        return v.get<bool>();
    }

    std::string string(const char* key) const
    {
        if (!has(key))
            return {};
        const auto& v = json_.at(key);
        if (!v.is_string())
            fail("\"" + std::string(key) + "\" should be a string, found " + json_excerpt(v));
        return v.get<std::string>();
    }

private:
    const std::filesystem::path& path_;
    const nlohmann::json& json_;
};

bool names_llama_architecture(const nlohmann::json& json)
{
    const auto it = json.find("architectures");
    if (it == json.end() || !it->is_array())
        return false;
    for (const auto& a : *it)
        if (a.is_string() && a.get<std::string>() == "LlamaForCausalLM")
            return true;
    return false;
}

} // namespace

ModelConfig read_hf_config(const std::filesystem::path& config_json)
{
    // A Hugging Face config.json is a few KiB; 1 MiB leaves room for long comments.
    const std::string text = read_text_file(config_json, size_t{1} << 20, config_json.string());
    const nlohmann::json json = parse_json_document(text, config_json.string());
    if (!json.is_object())
        throw Error(config_json.string() + ": not a valid JSON object");
    const ConfigReader r(config_json, json);

    const std::string model_type = r.string("model_type");
    if (model_type.empty() ? !names_llama_architecture(json) : model_type != "llama")
        r.fail("unsupported architecture '" + (model_type.empty() ? std::string("(none)") : model_type) +
               "': only LLaMA models (model_type \"llama\") are supported");
    if (r.has("rope_scaling"))
        r.fail("\"rope_scaling\" is set (" + json_excerpt(json.at("rope_scaling")) + "); scaled RoPE is not supported");
    if (const std::string act = r.string("hidden_act"); !act.empty() && act != "silu")
        r.fail("\"hidden_act\" is '" + act + "'; only SiLU (SwiGLU) is supported");
    // Bias tensors would be left out, silently: refuse what cannot be computed.
    for (const char* bias : {"attention_bias", "mlp_bias"})
        if (r.boolean(bias, false))
            r.fail("\"" + std::string(bias) + "\" is true; projections with bias terms are not supported");

    ModelConfig c;
    c.architecture = "llama";
    c.name = config_json.parent_path().filename().string();
    c.dim = r.positive_int("hidden_size");
    c.ffn_dim = r.positive_int("intermediate_size");
    c.n_layers = r.positive_int("num_hidden_layers");
    c.n_heads = r.positive_int("num_attention_heads");
    c.n_kv_heads = r.positive_int("num_key_value_heads", c.n_heads);
    c.n_vocab = r.positive_int("vocab_size");
    c.context_length = r.positive_int("max_position_embeddings");
    c.rms_eps = r.positive_float("rms_norm_eps", 1e-6f);  // LlamaConfig's default
    c.rope_theta = r.positive_float("rope_theta", 10000.0f);
    c.tied_output = r.boolean("tie_word_embeddings", false);
    c.rope_layout = RopeLayout::RotateHalf;
    c.head_dim = c.dim / c.n_heads;
    if (r.has("head_dim") && r.positive_int("head_dim") != c.head_dim)
        r.fail("\"head_dim\" " + std::to_string(r.positive_int("head_dim")) + " differs from hidden_size / num_attention_heads = " +
               std::to_string(c.head_dim) + "; that is not supported");
    return c;
}

} // namespace pyramid
