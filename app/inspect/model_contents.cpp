#include "model_contents.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "model/gguf_file.h"
#include "model/gguf_model.h"
#include "chat/prompt_format.h"
#include "model/gguf_vocab.h"
#include "model/hf_config.h"
#include "model/safetensors_file.h"
#include "tokenizer/tokenizer.h"
#include "util/error.h"

namespace pyramid::inspect {
namespace {

namespace fs = std::filesystem;

bool is_file(const fs::path& p)
{
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

// llama.cpp's names for general.file_type (its llama_ftype values), for the common ones.
std::string file_type_name(int64_t id)
{
    static const std::pair<int64_t, const char*> names[] = {
        {0, "F32"},     {1, "F16"},      {2, "Q4_0"},     {3, "Q4_1"},     {7, "Q8_0"},     {8, "Q5_0"},
        {9, "Q5_1"},    {10, "Q2_K"},    {11, "Q3_K_S"},  {12, "Q3_K_M"},  {13, "Q3_K_L"},  {14, "Q4_K_S"},
        {15, "Q4_K_M"}, {16, "Q5_K_S"},  {17, "Q5_K_M"},  {18, "Q6_K"},    {32, "BF16"},
    };
    for (const auto& [value, name] : names)
        if (value == id)
            return std::to_string(id) + " (" + name + ")";
    return std::to_string(id);
}

TokenizerFacts facts_from(const EmbeddedVocab& vocab)
{
    TokenizerFacts t;
    t.kind = vocab.model == "gpt2"
                 ? "byte-level BPE, embedded (tokenizer.ggml.model = gpt2, " + std::to_string(vocab.merges.size()) + " merges)"
                 : "SentencePiece, embedded (tokenizer.ggml.model = " + vocab.model + ")";
    t.vocab_size = static_cast<int>(vocab.tokens.size());
    t.bos_id = vocab.bos_id;
    t.eos_id = vocab.eos_id;
    const auto piece = [&](int32_t id) { return id >= 0 ? vocab.tokens[static_cast<size_t>(id)] : std::string(); };
    t.bos_piece = piece(vocab.bos_id);
    t.eos_piece = piece(vocab.eos_id);
    t.add_bos = vocab.add_bos;
    return t;
}

TokenizerFacts facts_from(const Tokenizer& tok, const fs::path& file)
{
    TokenizerFacts t;
    t.kind = "SentencePiece model file (" + file.filename().string() + ")";
    t.vocab_size = tok.vocab_size();
    t.bos_id = tok.bos_id();
    t.eos_id = tok.eos_id();
    t.bos_piece = t.bos_id >= 0 ? tok.piece(t.bos_id) : std::string();
    t.eos_piece = t.eos_id >= 0 ? tok.piece(t.eos_id) : std::string();
    t.add_bos = tok.add_bos();
    return t;
}

ModelContents read_gguf(const fs::path& path)
{
    auto file = std::make_shared<GgufFile>(GgufFile::open(path));
    ModelContents out;
    out.path = path;
    out.format = "GGUF v" + std::to_string(file->version());
    out.shape_order = "ggml order: ne0 (the contiguous row length) first";
    out.file_bytes = file->mapping()->size();
    out.config = read_gguf_config(*file);
    out.facts.emplace_back("metadata keys", std::to_string(file->metadata().size()));
    out.facts.emplace_back("tensor data alignment", std::to_string(file->alignment()));
    if (const auto ftype = file->get_int("general.file_type"))
        out.facts.emplace_back("general.file_type", file_type_name(*ftype));
    if (const auto qv = file->get_int("general.quantization_version"))
        out.facts.emplace_back("general.quantization_version", std::to_string(*qv));
    if (const auto vocab = read_gguf_vocab(*file)) {
        out.tokenizer = facts_from(*vocab);
        if (const auto pre = file->get_string("tokenizer.ggml.pre"))
            out.tokenizer->kind += ", pre-tokenizer " + std::string(*pre);
        const std::string_view jinja = file->get_string("tokenizer.chat_template").value_or("");
        const auto family = detect_chat_template(jinja);
        out.tokenizer->chat_template = family ? std::string(prompt_format_name(*family)) + " (tokenizer.chat_template)"
                                       : jinja.empty() ? "none in the file"
                                                       : "of a family not known here (choose a format by hand)";
    }
    for (const GgufTensorInfo& t : file->tensors()) {
        TensorEntry e;
        e.name = t.name;
        e.type = t.type;
        e.type_name = std::string(tensor_type_traits(t.type).name);
        e.shape.assign(t.ne.begin(), t.ne.begin() + t.n_dims);
        e.elements = t.elements();
        e.bytes = t.nbytes;
        e.data = t.data;
        out.tensors.push_back(std::move(e));
    }
    out.mappings.push_back(file->mapping());
    return out;
}

// The shard files of a folder: model.safetensors, or those model.safetensors.index.json
// maps tensors to (in first-use order).
std::vector<fs::path> shard_files(const fs::path& folder)
{
    if (const fs::path single = folder / "model.safetensors"; is_file(single))
        return {single};
    const fs::path index = folder / "model.safetensors.index.json";
    if (!is_file(index))
        throw Error(folder.string() + ": no model.safetensors or model.safetensors.index.json");
    std::ifstream in(index, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded() || !json.is_object() || !json.contains("weight_map") || !json["weight_map"].is_object())
        throw Error(index.string() + ": not a JSON object with a \"weight_map\" object");
    std::vector<fs::path> shards;
    for (const auto& [tensor, file] : json["weight_map"].items()) {
        const std::string name = file.is_string() ? file.get<std::string>() : std::string();
        if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
            throw Error(index.string() + ": weight_map entry '" + tensor + "' does not name a file in the folder");
        if (std::find(shards.begin(), shards.end(), folder / name) == shards.end())
            shards.push_back(folder / name);
    }
    return shards;
}

ModelContents read_hf_folder(const fs::path& folder)
{
    const fs::path config_path = folder / "config.json";
    if (!is_file(config_path))
        throw Error(folder.string() + ": not a Hugging Face model folder (no config.json)");
    ModelContents out;
    out.path = folder;
    out.format = "safetensors (Hugging Face folder)";
    out.shape_order = "PyTorch order: rows first, the contiguous dimension last";
    out.config = read_hf_config(config_path);
    const auto shards = shard_files(folder);
    out.facts.emplace_back("safetensors files", std::to_string(shards.size()));
    for (const fs::path& shard : shards) {
        const auto file = std::make_shared<SafetensorsFile>(SafetensorsFile::open(shard));
        out.file_bytes += file->mapping()->size();
        for (const SafetensorsTensor& t : file->tensors()) {
            TensorEntry e;
            e.name = t.name;
            e.type = t.type;
            e.type_name = t.type ? std::string(tensor_type_traits(*t.type).name) : t.dtype;
            std::transform(e.type_name.begin(), e.type_name.end(), e.type_name.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            e.shape = t.shape;
            e.elements = 1;
            for (int64_t d : t.shape)
                e.elements *= d;
            e.bytes = t.nbytes;
            e.data = t.data;
            out.tensors.push_back(std::move(e));
        }
        out.mappings.push_back(file);
    }
    if (const fs::path tok = folder / "tokenizer.model"; is_file(tok))
        out.tokenizer = facts_from(Tokenizer::from_model_file(tok), tok);
    return out;
}

} // namespace

ModelContents read_model_contents(const std::filesystem::path& path)
{
    std::error_code ec;
    if (fs::is_directory(path, ec))
        return read_hf_folder(path);
    if (!fs::exists(path, ec))
        throw Error(path.string() + ": no such file or folder");
    return read_gguf(path);
}

} // namespace pyramid::inspect
