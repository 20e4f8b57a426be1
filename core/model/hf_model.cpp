#include "model/hf_model.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "model/hf_config.h"
#include "model/safetensors_file.h"
#include "model/weight_assembly.h"
#include "util/error.h"
#include "util/json_input.h"
#include "util/text_input.h"

namespace pyramid {
namespace {

namespace fs = std::filesystem;

// Existence checks that report an unreadable path as absent instead of throwing
// std::filesystem_error: opening it then fails with a pyramid::Error naming it.
bool is_file(const fs::path& p)
{
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

std::string hf_name(WeightRole role, int layer)
{
    const std::string blk = "model.layers." + std::to_string(layer) + ".";
    switch (role) {
    case WeightRole::TokenEmbedding: return "model.embed_tokens.weight";
    case WeightRole::OutputNorm: return "model.norm.weight";
    case WeightRole::Output: return "lm_head.weight";
    case WeightRole::AttnNorm: return blk + "input_layernorm.weight";
    case WeightRole::Wq: return blk + "self_attn.q_proj.weight";
    case WeightRole::Wk: return blk + "self_attn.k_proj.weight";
    case WeightRole::Wv: return blk + "self_attn.v_proj.weight";
    case WeightRole::Wo: return blk + "self_attn.o_proj.weight";
    case WeightRole::FfnNorm: return blk + "post_attention_layernorm.weight";
    case WeightRole::Gate: return blk + "mlp.gate_proj.weight";
    case WeightRole::Up: return blk + "mlp.up_proj.weight";
    case WeightRole::Down: return blk + "mlp.down_proj.weight";
    }
    return {};
}

// The shard file names model.safetensors.index.json maps tensors to, in first-use order.
// Names must be plain file names inside the folder.
std::vector<std::string> read_shard_index(const fs::path& index_path, std::map<std::string, std::string>& weight_map)
{
    // An index lists every tensor once: tens of KiB for a 70B model; 16 MiB is far beyond.
    const std::string text = read_text_file(index_path, size_t{16} << 20, index_path.string());
    const nlohmann::json json = parse_json_document(text, index_path.string());
    const std::string where = index_path.string() + ": ";
    if (!json.is_object())
        throw Error(where + "not a valid JSON object");
    const auto map = json.find("weight_map");
    if (map == json.end() || !map->is_object())
        throw Error(where + "has no \"weight_map\" object");

    std::vector<std::string> shards;
    for (const auto& [tensor, file] : map->items()) {
        if (!file.is_string())
            throw Error(where + "weight_map entry " + json_excerpt(tensor) + " is not a file name");
        const std::string name = file.get<std::string>();
        if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
            throw Error(where + "weight_map entry " + json_excerpt(tensor) + " names " + json_excerpt(name) +
                        ", not a file in the folder");
        weight_map.emplace(tensor, name);
        if (std::find(shards.begin(), shards.end(), name) == shards.end())
            shards.push_back(name);
    }
    return shards;
}

} // namespace

LoadedModel load_hf_model(const fs::path& folder, const std::function<void(double)>& progress)
{
    const fs::path config_path = folder / "config.json";
    if (!is_file(config_path))
        throw Error(folder.string() + ": not a Hugging Face model folder (no config.json)");
    ModelConfig config = read_hf_config(config_path);
    validate_model_config(config, config_path.string());

    // Which file holds each tensor: one model.safetensors, or the shards of the index.
    std::map<std::string, SafetensorsFile> files;
    std::map<std::string, std::string> weight_map;  // tensor -> file name; empty when unsharded
    const fs::path single = folder / "model.safetensors";
    const fs::path index = folder / "model.safetensors.index.json";
    if (is_file(single)) {
        files.emplace("model.safetensors", SafetensorsFile::open(single));
    } else if (is_file(index)) {
        for (const auto& shard : read_shard_index(index, weight_map)) {
            const fs::path shard_path = folder / shard;
            if (!is_file(shard_path))
                throw Error(index.string() + ": shard '" + shard + "' is missing from " + folder.string());
            files.emplace(shard, SafetensorsFile::open(shard_path));
        }
    } else {
        throw Error(folder.string() + ": no model.safetensors or model.safetensors.index.json");
    }

    TensorSource source;
    source.file = folder.string();
    source.expected_name = hf_name;
    for (const auto& [name, file] : files)
        for (const SafetensorsTensor& t : file.tensors())
            if (weight_map.empty() || weight_map.count(t.name))
                source.stored_names.push_back(t.name);
    // What transformers itself ignores: the rotary inverse frequencies older checkpoints saved
    // (recomputed from rope_theta), and a stored copy of a tied output projection.
    const bool tied = config.tied_output;
    source.may_leave_unused = [tied](const std::string& name) {
        return name.ends_with(".rotary_emb.inv_freq") || (tied && name == "lm_head.weight");
    };
    source.find = [&](WeightRole role, int layer) -> std::optional<StoredTensor> {
        const std::string name = hf_name(role, layer);
        const SafetensorsFile* file = nullptr;
        if (weight_map.empty()) {
            file = &files.begin()->second;
        } else {
            const auto it = weight_map.find(name);
            if (it == weight_map.end())
                return std::nullopt;
            file = &files.at(it->second);
        }
        const SafetensorsTensor* t = file->find(name);
        if (!t) {
            if (!weight_map.empty())
                throw Error(index.string() + ": maps '" + name + "' to " + file->path().filename().string() +
                            ", which does not hold it");
            return std::nullopt;
        }
        if (!t->type)
            throw Error(file->path().string() + ": tensor '" + name + "' has dtype " + t->dtype +
                        "; weights must be F32, F16 or BF16");
        return StoredTensor{name, *t->type, t->shape, t->data};
    };

    // transformers would fill a missing untied lm_head with random values; tying it instead
    // would be as wrong for a model trained untied, so the folder is refused.
    if (!config.tied_output && !source.find(WeightRole::Output, -1))
        throw Error(folder.string() + ": has no lm_head.weight, and config.json does not set tie_word_embeddings "
                    "(the output projection is missing: copy the model's files again, or set "
                    "\"tie_word_embeddings\": true if the model shares its token embedding)");

    LoadedModel out;
    out.format = "safetensors";
    out.weights = assemble_weights(std::move(config), source, progress);
    for (const auto& [name, file] : files)
        out.weights.storage.push_back(file.mapping());
    if (const fs::path tok = folder / "tokenizer.model"; is_file(tok))
        out.tokenizer_model = tok;
    return out;
}

} // namespace pyramid
