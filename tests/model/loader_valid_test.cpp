// Real models load with the right configuration and weights: stories260K as GGUF and as
// Hugging Face folders (F32, F16), the two synthetic K-quant GGUF files checked bit for bit
// against ggml's dequantization, plus sharded, tied and unaligned Hugging Face variants.
#include <QCryptographicHash>
#include <QtTest>

#include <cstring>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "gguf_builder.h"
#include "hf_builder.h"
#include "loader_test.h"
#include "model/gguf_file.h"
#include "model/gguf_vocab.h"
#include "model/safetensors_file.h"
#include "shared_data.h"
#include "util/float16.h"

using namespace pyramid;
using namespace pyramid::test;
namespace fs = std::filesystem;

Q_DECLARE_METATYPE(pyramid::TensorType)

namespace {

std::vector<const WeightView*> all_views(const ModelWeights& w)
{
    std::vector<const WeightView*> v{&w.token_embedding, &w.output_norm, &w.output};
    for (const auto& l : w.layers)
        for (const WeightView* p : {&l.attn_norm, &l.wq, &l.wk, &l.wv, &l.wo, &l.ffn_norm, &l.w_gate, &l.w_up, &l.w_down})
            v.push_back(p);
    return v;
}

// A whole view decoded row by row, the way the CPU backend reads weights.
std::vector<float> decode(const WeightView& v)
{
    std::vector<float> out(static_cast<size_t>(v.elements()));
    const auto& traits = tensor_type_traits(v.type);
    for (int64_t r = 0; r < v.rows; ++r)
        traits.to_float(v.row(r), out.data() + r * v.cols, v.cols);
    return out;
}

void check_stories_config(const ModelConfig& c)
{
    QCOMPARE(c.architecture, std::string("llama"));
    QCOMPARE(c.n_layers, 5);
    QCOMPARE(c.dim, 64);
    QCOMPARE(c.n_heads, 8);
    QCOMPARE(c.n_kv_heads, 4);
    QCOMPARE(c.head_dim, 8);
    QCOMPARE(c.kv_dim(), 32);
    QCOMPARE(c.ffn_dim, 172);
    QCOMPARE(c.n_vocab, 512);
    QCOMPARE(c.rope_theta, 10000.0f);
    QCOMPARE(c.rms_eps, 1e-5f);
    QVERIFY(!c.tied_output);
}

void check_stories_shapes(const ModelWeights& w)
{
    QCOMPARE(w.layers.size(), size_t{5});
    QCOMPARE(w.token_embedding.rows, 512);
    QCOMPARE(w.token_embedding.cols, 64);
    QCOMPARE(w.output.rows, 512);
    QCOMPARE(w.output_norm.type, TensorType::F32);
    QCOMPARE(w.output_norm.elements(), 64);
    for (const auto& l : w.layers) {
        QCOMPARE(l.attn_norm.type, TensorType::F32);
        QCOMPARE(l.ffn_norm.type, TensorType::F32);
        QCOMPARE(l.wq.rows, 64);
        QCOMPARE(l.wk.rows, 32);
        QCOMPARE(l.wv.rows, 32);
        QCOMPARE(l.wo.cols, 64);
        QCOMPARE(l.w_gate.rows, 172);
        QCOMPARE(l.w_up.rows, 172);
        QCOMPARE(l.w_down.rows, 64);
        QCOMPARE(l.w_down.cols, 172);
    }
}

nlohmann::json read_json(const fs::path& path) { return nlohmann::json::parse(read_file(path)); }

} // namespace

void ModelLoaderTest::storiesGguf()
{
    PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
    const LoadedModel m = load_model_files(path);
    QCOMPARE(m.format, std::string("gguf"));
    check_stories_config(m.weights.config);
    QCOMPARE(m.weights.config.context_length, 2048);  // the converter's default, see SOURCES.md
    QCOMPARE(m.weights.config.rope_layout, RopeLayout::Interleaved);
    check_stories_shapes(m.weights);
    for (const WeightView* v : all_views(m.weights))
        QCOMPARE(v->type, TensorType::F32);
    QCOMPARE(m.weights.layers[3].wk.name, std::string("blk.3.attn_k.weight"));
    QVERIFY(m.tokenizer_model.empty());

    QVERIFY(m.vocab.has_value());
    const EmbeddedVocab& v = *m.vocab;
    QCOMPARE(v.model, std::string("llama"));
    QCOMPARE(v.tokens.size(), size_t{512});
    QCOMPARE(v.scores.size(), size_t{512});
    QCOMPARE(v.token_types.size(), size_t{512});
    QCOMPARE(v.tokens[0], std::string("<unk>"));
    QCOMPARE(v.tokens[1], std::string("<s>"));
    QCOMPARE(v.tokens[2], std::string("</s>"));
    QCOMPARE(v.tokens[3], std::string("<0x00>"));
    QCOMPARE(v.token_types[0], 2);
    QCOMPARE(v.token_types[1], 3);
    QCOMPARE(v.token_types[3], 6);
    QCOMPARE(v.bos_id, 1);
    QCOMPARE(v.eos_id, 2);
    QCOMPARE(v.unk_id, 0);
    QCOMPARE(v.pad_id, -1);  // stored as 0xFFFFFFFF
}

void ModelLoaderTest::storiesHuggingFace_data()
{
    QTest::addColumn<QString>("folder");
    QTest::addColumn<pyramid::TensorType>("type");
    QTest::newRow("f32") << "models/stories260K-hf" << TensorType::F32;
    QTest::newRow("f16") << "models/stories260K-hf-f16" << TensorType::F16;
}

void ModelLoaderTest::storiesHuggingFace()
{
    QFETCH(QString, folder);
    QFETCH(pyramid::TensorType, type);
    PYRAMID_REQUIRE_SHARED(path, folder.toStdString());
    const LoadedModel m = load_model_files(path);
    QCOMPARE(m.format, std::string("safetensors"));
    check_stories_config(m.weights.config);
    QCOMPARE(m.weights.config.context_length, 512);
    QCOMPARE(m.weights.config.rope_layout, RopeLayout::RotateHalf);
    check_stories_shapes(m.weights);
    QVERIFY(!m.vocab.has_value());
    QCOMPARE(m.tokenizer_model, path / "tokenizer.model");
    QCOMPARE(m.weights.token_embedding.type, type);
    QCOMPARE(m.weights.layers[4].w_down.type, type);
    QCOMPARE(m.weights.layers[4].w_down.name, std::string("model.layers.4.mlp.down_proj.weight"));
}

void ModelLoaderTest::ggufAndHuggingFaceF32Agree()
{
    PYRAMID_REQUIRE_SHARED(gguf_path, "models/stories260K.gguf");
    PYRAMID_REQUIRE_SHARED(hf_path, "models/stories260K-hf");
    const LoadedModel g = load_model_files(gguf_path);
    const LoadedModel h = load_model_files(hf_path);
    const auto same = [](const WeightView& a, const WeightView& b) {
        return a.type == b.type && a.rows == b.rows && a.cols == b.cols && std::memcmp(a.data, b.data, a.bytes()) == 0;
    };
    QVERIFY(same(g.weights.token_embedding, h.weights.token_embedding));
    QVERIFY(same(g.weights.output, h.weights.output));
    QVERIFY(same(g.weights.output_norm, h.weights.output_norm));
    for (size_t i = 0; i < g.weights.layers.size(); ++i) {
        const auto& a = g.weights.layers[i];
        const auto& b = h.weights.layers[i];
        QVERIFY(same(a.attn_norm, b.attn_norm));
        QVERIFY(same(a.wv, b.wv));
        QVERIFY(same(a.wo, b.wo));
        QVERIFY(same(a.ffn_norm, b.ffn_norm));
        QVERIFY(same(a.w_gate, b.w_gate));
        QVERIFY(same(a.w_up, b.w_up));
        QVERIFY(same(a.w_down, b.w_down));
        QVERIFY(!same(a.wq, b.wq));  // permuted, checked below
    }
}

void ModelLoaderTest::huggingFaceF16IsRoundedF32()
{
    PYRAMID_REQUIRE_SHARED(f32_path, "models/stories260K-hf");
    PYRAMID_REQUIRE_SHARED(f16_path, "models/stories260K-hf-f16");
    const LoadedModel a = load_model_files(f32_path);
    const LoadedModel b = load_model_files(f16_path);
    const auto views_a = all_views(a.weights);
    const auto views_b = all_views(b.weights);
    QCOMPARE(views_a.size(), views_b.size());
    for (size_t i = 0; i < views_a.size(); ++i) {
        const std::vector<float> x = decode(*views_a[i]);
        const std::vector<float> y = decode(*views_b[i]);
        QCOMPARE(x.size(), y.size());
        for (size_t k = 0; k < x.size(); ++k)
            if (fp16_to_fp32(fp32_to_fp16(x[k])) != y[k])
                QFAIL(qPrintable(QString("%1[%2]: f16 file holds %3, f32 rounds to %4")
                                     .arg(QString::fromStdString(views_b[i]->name)).arg(k).arg(y[k]).arg(x[k])));
    }
}

void ModelLoaderTest::queryKeyRowsArePermutedRotateHalf()
{
    // llama.cpp's converter reorders each head's rows from [first halves; second halves] to
    // interleaved pairs: GGUF row h*hd + 2i + j is Hugging Face row h*hd + j*hd/2 + i.
    PYRAMID_REQUIRE_SHARED(gguf_path, "models/stories260K.gguf");
    PYRAMID_REQUIRE_SHARED(hf_path, "models/stories260K-hf");
    const LoadedModel g = load_model_files(gguf_path);
    const LoadedModel h = load_model_files(hf_path);
    const int hd = g.weights.config.head_dim;
    const auto check = [hd](const WeightView& gg, const WeightView& hf) {
        const int64_t heads = gg.rows / hd;
        for (int64_t head = 0; head < heads; ++head)
            for (int i = 0; i < hd / 2; ++i)
                for (int j = 0; j < 2; ++j)
                    if (std::memcmp(gg.row(head * hd + 2 * i + j), hf.row(head * hd + j * hd / 2 + i), gg.row_bytes()) != 0)
                        return false;
        return true;
    };
    for (size_t l = 0; l < g.weights.layers.size(); ++l) {
        QVERIFY(check(g.weights.layers[l].wq, h.weights.layers[l].wq));
        QVERIFY(check(g.weights.layers[l].wk, h.weights.layers[l].wk));
    }
}

void ModelLoaderTest::kquantsEveryTensorBitExact_data()
{
    QTest::addColumn<QString>("stem");
    QTest::newRow("q4_k_m") << "synthetic-llama-q4_k_m";
    QTest::newRow("mixed") << "synthetic-llama-mixed";
}

void ModelLoaderTest::kquantsEveryTensorBitExact()
{
    QFETCH(QString, stem);
    PYRAMID_REQUIRE_SHARED(path, "models/kquants/" + stem.toStdString() + ".gguf");
    PYRAMID_REQUIRE_SHARED(json_path, "models/kquants/" + stem.toStdString() + ".dequant.json");
    const nlohmann::json ref = read_json(json_path);
    std::map<std::string, nlohmann::json> by_name;
    for (const auto& t : ref["tensors"])
        by_name[t["name"].get<std::string>()] = t;

    const LoadedModel m = load_model_files(path);
    const ModelConfig& c = m.weights.config;
    QCOMPARE(c.dim, 256);
    QCOMPARE(c.n_layers, 4);
    QCOMPARE(c.n_heads, 4);
    QCOMPARE(c.n_kv_heads, 2);
    QCOMPARE(c.head_dim, 64);
    QCOMPARE(c.ffn_dim, 768);
    QCOMPARE(c.n_vocab, 32000);
    QCOMPARE(c.context_length, 4096);

    const auto views = all_views(m.weights);
    QCOMPARE(views.size(), by_name.size());  // every tensor of the file is used exactly once
    const int64_t base = ref["tensors"][0]["gguf_offset"].get<int64_t>();
    for (const WeightView* v : views) {
        const auto it = by_name.find(v->name);
        QVERIFY2(it != by_name.end(), v->name.c_str());
        const nlohmann::json& t = it->second;
        QCOMPARE(static_cast<uint32_t>(v->type), t["type_id"].get<uint32_t>());
        QCOMPARE(v->cols, t["ne"][0].get<int64_t>());
        QCOMPARE(v->elements(), t["n_elements"].get<int64_t>());
        QCOMPARE(static_cast<int64_t>(v->bytes()), t["gguf_nbytes"].get<int64_t>());
        // A view into the map at the tensor's file offset, not a decoded copy.
        QCOMPARE(v->data - m.weights.token_embedding.data, t["gguf_offset"].get<int64_t>() - base);

        const std::vector<float> values = decode(*v);
        const QByteArray sha = QCryptographicHash::hash(
            QByteArrayView(reinterpret_cast<const char*>(values.data()), qsizetype(values.size() * sizeof(float))),
            QCryptographicHash::Sha256).toHex();
        QVERIFY2(sha.toStdString() == t["dequant_sha256"].get<std::string>(),
                 (v->name + " (" + t["type"].get<std::string>() + ") decodes differently from ggml").c_str());
    }
}

void ModelLoaderTest::kquantsVocabulary()
{
    PYRAMID_REQUIRE_SHARED(path, "models/kquants/synthetic-llama-q4_k_m.gguf");
    PYRAMID_REQUIRE_SHARED(vocab_path, "models/ggml-vocab-llama-spm.gguf");
    const LoadedModel m = load_model_files(path);
    QVERIFY(m.vocab.has_value());
    const auto reference = read_gguf_vocab(GgufFile::open(vocab_path));
    QVERIFY(reference.has_value());
    QCOMPARE(m.vocab->tokens.size(), size_t{32000});
    QVERIFY(m.vocab->tokens == reference->tokens);
    QVERIFY(m.vocab->scores == reference->scores);
    QVERIFY(m.vocab->token_types == reference->token_types);
    QCOMPARE(m.vocab->tokens[29871], std::string("\xE2\x96\x81"));  // "▁", the lone space piece
    QCOMPARE(m.vocab->tokens[259], std::string("\xE2\x96\x81\xE2\x96\x81"));
    QVERIFY(m.vocab->add_bos);
    QVERIFY(!m.vocab->add_eos);
    QCOMPARE(m.vocab->bos_id, 1);
    QCOMPARE(m.vocab->eos_id, 2);
}

void ModelLoaderTest::vocabOnlyGguf()
{
    PYRAMID_REQUIRE_SHARED(path, "models/ggml-vocab-llama-spm.gguf");
    const GgufFile f = GgufFile::open(path);
    QCOMPARE(f.version(), 3u);
    QCOMPARE(f.tensors().size(), size_t{0});
    QCOMPARE(f.metadata().size(), size_t{22});
    QCOMPARE(f.get_int("llama.embedding_length").value(), 4096);
    QCOMPARE(f.get_float("llama.attention.layer_norm_rms_epsilon").value(), double(1e-5f));
    QCOMPARE(f.get_bool("tokenizer.ggml.add_bos_token").value(), true);
    QCOMPARE(f.get_string("tokenizer.ggml.pre").value(), std::string_view("default"));
    const GgufArray* scores = f.get_array("tokenizer.ggml.scores");
    QVERIFY(scores);
    QCOMPARE(scores->element_type(), GgufType::Float32);
    QCOMPARE(scores->size(), size_t{32000});
    QVERIFY_THROWS_EXCEPTION(Error, f.get_int("general.name"));  // a string, not an integer
    // No tensors: loading it as a model names what is missing.
    const LoadOutcome o = load_outcome(path);
    QVERIFY2(o.rejected_with("token_embd.weight"), o.describe().c_str());
}

void ModelLoaderTest::ggufEveryValueType()
{
    GgufBuilder g = tiny_llama_gguf();
    const auto scalar = [&](const char* key, uint32_t type, const auto& value) {
        g.add_raw(key, type, std::string(reinterpret_cast<const char*>(&value), sizeof value));
    };
    scalar("t.u8", 0, uint8_t{200});
    scalar("t.i8", 1, int8_t{-100});
    scalar("t.u16", 2, uint16_t{60000});
    scalar("t.i16", 3, int16_t{-30000});
    scalar("t.u32", 4, uint32_t{4000000000u});
    scalar("t.i32", 5, int32_t{-2000000000});
    scalar("t.f32", 6, 0.1f);
    g.add_bool("t.bool", true);
    g.add_string("t.string", std::string("with\0nul", 8));
    scalar("t.u64", 10, uint64_t{~0ull});
    scalar("t.i64", 11, int64_t{-(1ll << 62)});
    scalar("t.f64", 12, 0.1);
    Bytes nested;  // [[7, 8], [], [9]] of uint16
    nested.u32(9);
    nested.u64(3);
    for (const std::vector<uint16_t>& inner : {std::vector<uint16_t>{7, 8}, std::vector<uint16_t>{}, std::vector<uint16_t>{9}}) {
        nested.u32(2);
        nested.u64(inner.size());
        nested.raw(inner.data(), inner.size() * 2);
    }
    g.add_raw("t.nested", 9, nested.data);
    g.add_raw("t.bools", 9, std::string("\x07\0\0\0\x03\0\0\0\0\0\0\0\x01\x00\x01", 15));
    const fs::path path = write_file(fs::path(dir_.path().toStdString()) / "values.gguf", g.build());

    const GgufFile f = GgufFile::open(path);
    QCOMPARE(f.find("t.u8")->type, GgufType::UInt8);
    QCOMPARE(f.get_int("t.u8").value(), 200);
    QCOMPARE(f.get_int("t.i8").value(), -100);
    QCOMPARE(f.get_int("t.u16").value(), 60000);
    QCOMPARE(f.get_int("t.i16").value(), -30000);
    QCOMPARE(f.get_int("t.u32").value(), 4000000000ll);
    QCOMPARE(f.get_int("t.i32").value(), -2000000000ll);
    QCOMPARE(f.get_float("t.f32").value(), double(0.1f));
    QCOMPARE(f.get_bool("t.bool").value(), true);
    QCOMPARE(f.get_string("t.string").value(), std::string_view("with\0nul", 8));
    QVERIFY(!f.find("t.u64")->as_int().has_value());  // above int64: refused rather than wrapped
    QCOMPARE(std::get<uint64_t>(f.find("t.u64")->value), ~0ull);
    QCOMPARE(f.find("t.u64")->type, GgufType::UInt64);
    QCOMPARE(f.get_int("t.i64").value(), -(1ll << 62));
    QCOMPARE(f.find("t.f64")->type, GgufType::Float64);
    QCOMPARE(f.get_float("t.f64").value(), 0.1);
    QVERIFY(!f.get_int("no.such.key").has_value());

    const GgufArray* outer = f.get_array("t.nested");
    QVERIFY(outer);
    QCOMPARE(outer->element_type(), GgufType::Array);
    QCOMPARE(outer->size(), size_t{3});
    const GgufArray* first = outer->at(0).as_array();
    QCOMPARE(first->element_type(), GgufType::UInt16);
    QCOMPARE(first->size(), size_t{2});
    QCOMPARE(first->at(1).as_int().value(), 8);
    QCOMPARE(outer->at(1).as_array()->size(), size_t{0});
    QCOMPARE(outer->at(2).as_array()->at(0).as_int().value(), 9);
    QVERIFY_THROWS_EXCEPTION(Error, outer->at(3));

    const GgufArray* bools = f.get_array("t.bools");
    QCOMPARE(bools->element_type(), GgufType::Bool);
    QCOMPARE(bools->at(0).as_bool().value(), true);
    QCOMPARE(bools->at(1).as_bool().value(), false);
    QCOMPARE(bools->at(2).as_bool().value(), true);
    QVERIFY(load_outcome(path).kind == LoadOutcome::Loaded);  // unknown keys do not disturb loading
}

void ModelLoaderTest::progressReported()
{
    PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
    std::vector<double> seen;
    load_model_files(path, [&](double p) { seen.push_back(p); });
    QVERIFY(seen.size() >= 6);
    QCOMPARE(seen.back(), 1.0);
    for (size_t i = 0; i < seen.size(); ++i) {
        QVERIFY(seen[i] >= 0.0 && seen[i] <= 1.0);
        if (i > 0)
            QVERIFY(seen[i] >= seen[i - 1]);
    }
}

void ModelLoaderTest::shardedHuggingFaceFolder()
{
    PYRAMID_REQUIRE_SHARED(src, "models/stories260K-hf");
    const auto entries = safetensors_entries(SafetensorsFile::open(src / "model.safetensors"));
    const fs::path folder = fs::path(dir_.path().toStdString()) / "sharded";
    std::vector<SafetensorsEntry> shard[2];
    nlohmann::json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", nlohmann::json::object()}};
    for (size_t i = 0; i < entries.size(); ++i) {
        shard[i % 2].push_back(entries[i]);
        index["weight_map"][entries[i].name] = "model-0000" + std::to_string(i % 2 + 1) + "-of-00002.safetensors";
    }
    write_file(folder / "config.json", read_file(src / "config.json"));
    write_file(folder / "model-00001-of-00002.safetensors", safetensors_bytes(shard[0]));
    write_file(folder / "model-00002-of-00002.safetensors", safetensors_bytes(shard[1]));
    write_file(folder / "model.safetensors.index.json", index.dump());

    const LoadedModel sharded = load_model_files(folder);
    const LoadedModel single = load_model_files(src);
    QVERIFY(sharded.tokenizer_model.empty());
    const auto a = all_views(sharded.weights);
    const auto b = all_views(single.weights);
    for (size_t i = 0; i < a.size(); ++i)
        QVERIFY2(std::memcmp(a[i]->data, b[i]->data, a[i]->bytes()) == 0, a[i]->name.c_str());
}

void ModelLoaderTest::tiedEmbeddings()
{
    // GGUF without output.weight.
    GgufBuilder g = tiny_llama_gguf();
    g.remove_tensor("output.weight");
    const fs::path gguf = write_file(fs::path(dir_.path().toStdString()) / "tied.gguf", g.build());
    const LoadedModel a = load_model_files(gguf);
    QVERIFY(a.weights.config.tied_output);
    QCOMPARE(a.weights.output.data, a.weights.token_embedding.data);
    QCOMPARE(a.weights.output.name, std::string("token_embd.weight"));

    // Hugging Face without lm_head: refused unless tie_word_embeddings is set.
    PYRAMID_REQUIRE_SHARED(src, "models/stories260K-hf");
    auto entries = safetensors_entries(SafetensorsFile::open(src / "model.safetensors"));
    std::erase_if(entries, [](const SafetensorsEntry& e) { return e.name == "lm_head.weight"; });
    const fs::path folder = fs::path(dir_.path().toStdString()) / "tied-hf";
    write_file(folder / "config.json", read_file(src / "config.json"));
    write_file(folder / "model.safetensors", safetensors_bytes(entries));
    const LoadOutcome untied = load_outcome(folder);
    QVERIFY2(untied.rejected_with("has no lm_head.weight, and config.json does not set tie_word_embeddings"),
             untied.describe().c_str());

    nlohmann::json config = read_json(src / "config.json");
    config["tie_word_embeddings"] = true;
    write_file(folder / "config.json", config.dump());
    const LoadedModel b = load_model_files(folder);
    QVERIFY(b.weights.config.tied_output);
    QCOMPARE(b.weights.output.data, b.weights.token_embedding.data);

    write_file(folder / "model.safetensors", read_file(src / "model.safetensors"));  // lm_head present but unused
    const LoadedModel c = load_model_files(folder);
    QVERIFY(c.weights.config.tied_output);
    QCOMPARE(c.weights.output.data, c.weights.token_embedding.data);
}

void ModelLoaderTest::unalignedSafetensorsData()
{
    PYRAMID_REQUIRE_SHARED(src, "models/stories260K-hf");
    const auto entries = safetensors_entries(SafetensorsFile::open(src / "model.safetensors"));
    const fs::path folder = fs::path(dir_.path().toStdString()) / "unaligned";
    write_file(folder / "config.json", read_file(src / "config.json"));
    write_file(folder / "model.safetensors", safetensors_bytes(entries, /*misaligned=*/true));
    const LoadedModel odd = load_model_files(folder);
    const LoadedModel ref = load_model_files(src);
    const auto a = all_views(odd.weights);
    const auto b = all_views(ref.weights);
    for (size_t i = 0; i < a.size(); ++i) {
        QVERIFY2(reinterpret_cast<uintptr_t>(a[i]->data) % alignof(float) == 0, a[i]->name.c_str());
        QVERIFY2(std::memcmp(a[i]->data, b[i]->data, a[i]->bytes()) == 0, a[i]->name.c_str());
    }
}

void ModelLoaderTest::nonF32NormsConverted()
{
    // Norms stored as F16 / BF16 come out as F32 views with the exactly decoded values.
    GgufBuilder g = tiny_llama_gguf();
    std::string f16, bf16;
    std::vector<float> expect_f16, expect_bf16;
    for (int i = 0; i < 32; ++i) {
        const float x = 1.0f + 0.013f * static_cast<float>(i);
        const uint16_t h = fp32_to_fp16(x), b = fp32_to_bf16(x);
        f16.append(reinterpret_cast<const char*>(&h), 2);
        bf16.append(reinterpret_cast<const char*>(&b), 2);
        expect_f16.push_back(fp16_to_fp32(h));
        expect_bf16.push_back(bf16_to_fp32(b));
    }
    *g.tensor("output_norm.weight") = {"output_norm.weight", {32}, 1, f16, {}, {}};
    *g.tensor("blk.0.attn_norm.weight") = {"blk.0.attn_norm.weight", {32}, 30, bf16, {}, {}};
    const fs::path path = write_file(fs::path(dir_.path().toStdString()) / "norms.gguf", g.build());
    const LoadedModel m = load_model_files(path);
    QCOMPARE(m.weights.output_norm.type, TensorType::F32);
    QCOMPARE(m.weights.layers[0].attn_norm.type, TensorType::F32);
    QVERIFY(decode(m.weights.output_norm) == expect_f16);
    QVERIFY(decode(m.weights.layers[0].attn_norm) == expect_bf16);
}
