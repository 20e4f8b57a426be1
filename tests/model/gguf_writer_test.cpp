// The GGUF writer (model/gguf_writer.h): generated weights written with llama.cpp's LLaMA-2
// vocabulary load back through the model loader with the same config, vocabulary, tensor
// types, shapes and bytes, for float, single quantized and mixed storage; the tokenizer entries
// are the vocabulary file's; a tied output is written once; each refusal names its problem
// and leaves no file behind.
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "model/gguf_writer.h"
#include "model/model_loader.h"
#include "model/synthetic_storage.h"
#include "model/synthetic_weights.h"
#include "error_message.h"
#include "shared_data.h"
#include "util/error.h"

using namespace pyramid;
using pyramid::test::error_of;

namespace {

constexpr const char* kVocabulary = "models/ggml-vocab-llama-spm.gguf";

// Whole k-quant blocks (256 values) in every row, LLaMA-2's vocabulary, enough layers for
// the Q4_K_M mix to give some of them Q6_K.
ModelConfig file_config()
{
    return ModelConfig{.name = "written", .n_vocab = 32000, .dim = 256, .ffn_dim = 512, .n_layers = 3,
                       .n_heads = 4, .n_kv_heads = 2, .head_dim = 64, .context_length = 256};
}

// model.gguf in a fresh folder, removed with the object.
struct TempFile {
    QTemporaryDir folder;
    std::filesystem::path dir{folder.path().toStdString()};
    std::filesystem::path path = dir / "model.gguf";
    bool folder_empty() const { return std::filesystem::is_empty(dir); }
};

} // namespace

class GgufWriterTest : public QObject {
    Q_OBJECT

private slots:
    void loads_back_as_written_data()
    {
        QTest::addColumn<QString>("storage");
        QTest::addColumn<int>("file_type");
        QTest::newRow("f16") << "f16" << 1;
        QTest::newRow("q8_0") << "q8_0" << 7;
        QTest::newRow("q4_k_m") << "q4_k_m" << 15;
        QTest::newRow("q4_k (no llama.cpp file type)") << "q4_k" << -1;
    }

    void loads_back_as_written()
    {
        QFETCH(QString, storage);
        QFETCH(int, file_type);
        PYRAMID_REQUIRE_SHARED(vocab_path, kVocabulary);
        const SyntheticStorage how = SyntheticStorage::parse(storage.toStdString());
        QCOMPARE(how.llama_file_type().has_value(), file_type >= 0);
        if (file_type >= 0)
            QCOMPARE(int(*how.llama_file_type()), file_type);
        const ModelWeights weights = generate_model_weights(file_config(), how, 7, true);
        const GgufFile vocabulary = GgufFile::open(vocab_path);
        TempFile file;
        const uint64_t bytes = write_gguf_model(file.path, weights, vocabulary, {how.llama_file_type(), {}});
        QCOMPARE(bytes, uint64_t(std::filesystem::file_size(file.path)));
        QVERIFY(!std::filesystem::exists(file.path.string() + ".part"));

        const LoadedModel loaded = load_model_files(file.path);
        const ModelConfig& a = weights.config;
        const ModelConfig& b = loaded.weights.config;
        QCOMPARE(b.name, a.name);
        QCOMPARE(b.n_vocab, a.n_vocab);
        QCOMPARE(b.dim, a.dim);
        QCOMPARE(b.ffn_dim, a.ffn_dim);
        QCOMPARE(b.n_layers, a.n_layers);
        QCOMPARE(b.n_heads, a.n_heads);
        QCOMPARE(b.n_kv_heads, a.n_kv_heads);
        QCOMPARE(b.head_dim, a.head_dim);
        QCOMPARE(b.context_length, a.context_length);
        QCOMPARE(b.rope_theta, a.rope_theta);
        QCOMPARE(b.rms_eps, a.rms_eps);
        QVERIFY(!b.tied_output);

        const std::vector<const WeightView*> written = stored_views(weights), read = stored_views(loaded.weights);
        QCOMPARE(read.size(), written.size());
        int q6_k = 0;
        for (size_t i = 0; i < written.size(); ++i) {
            const WeightView& w = *written[i];
            const WeightView& r = *read[i];
            QCOMPARE(r.name, w.name);
            QCOMPARE(r.type, w.type);
            QCOMPARE(r.rows, w.rows);
            QCOMPARE(r.cols, w.cols);
            QVERIFY2(std::memcmp(r.data, w.data, w.bytes()) == 0, w.name.c_str());
            q6_k += w.type == TensorType::Q6_K;
        }
        // The mix really is a mix: output, and attn_v and ffn_down of the last of 3 layers (llama.cpp's
        // use_more_bits: the first and last eighth, and every third between).
        QCOMPARE(q6_k, how.medium_mix ? 3 : 0);
        if (how.medium_mix) {
            QCOMPARE(loaded.weights.layers[2].wv.type, TensorType::Q6_K);
            QCOMPARE(loaded.weights.layers[2].w_down.type, TensorType::Q6_K);
            QCOMPARE(loaded.weights.output.type, TensorType::Q6_K);
        }

        const GgufFile file_read = GgufFile::open(file.path);
        QCOMPARE(file_read.get_int("general.file_type").has_value(), file_type >= 0);
        if (file_type >= 0)
            QCOMPARE(*file_read.get_int("general.file_type"), int64_t(file_type));
        QCOMPARE(*file_read.get_string("general.architecture"), std::string_view("llama"));
        QCOMPARE(*file_read.get_int("llama.rope.dimension_count"), int64_t(a.head_dim));
        // Norms are vectors, as llama.cpp wants them.
        QCOMPARE(file_read.find_tensor("blk.0.attn_norm.weight")->n_dims, 1);
        QCOMPARE(file_read.find_tensor("blk.0.attn_q.weight")->n_dims, 2);
        // Every tokenizer entry as it is in the vocabulary file: same type and encoded value.
        int entries = 0;
        for (const auto& [key, value] : vocabulary.metadata()) {
            if (!key.starts_with("tokenizer."))
                continue;
            ++entries;
            const GgufValue* copy = file_read.find(key);
            QVERIFY2(copy, std::string(key).c_str());
            QCOMPARE(copy->type, value.type);
            if (const GgufArray* array = value.as_array()) {
                QCOMPARE(copy->as_array()->size(), array->size());
                QCOMPARE(copy->as_array()->element_type(), array->element_type());
                for (size_t i = 0; i < array->size(); i += 997) {
                    QCOMPARE(copy->as_array()->at(i).as_string(), array->at(i).as_string());
                    QCOMPARE(copy->as_array()->at(i).as_float(), array->at(i).as_float());
                }
            } else {
                QCOMPARE(copy->as_string(), value.as_string());
                QCOMPARE(copy->as_int(), value.as_int());
                QCOMPARE(copy->as_bool(), value.as_bool());
            }
        }
        QVERIFY(entries >= 5);
        QVERIFY(loaded.vocab.has_value());
        QCOMPARE(loaded.vocab->model, std::string("llama"));
        QCOMPARE(loaded.vocab->tokens.size(), size_t(32000));
        QCOMPARE(loaded.vocab->tokens[29871], std::string("\xe2\x96\x81"));  // "▁", LLaMA-2's space
    }

    void a_named_shape_is_written_as_generated()
    {
        PYRAMID_REQUIRE_SHARED(vocab_path, kVocabulary);
        ModelConfig config = file_config();
        config.rope_layout = RopeLayout::RotateHalf;  // as model_shapes.h's shapes, for the baseline
        const ModelWeights weights = generate_model_weights(config, SyntheticStorage(TensorType::F16), 5, true);
        TempFile file;
        write_gguf_model(file.path, weights, GgufFile::open(vocab_path));
        const LoadedModel loaded = load_model_files(file.path);
        QCOMPARE(loaded.weights.config.rope_layout, RopeLayout::Interleaved);
        QVERIFY(std::memcmp(loaded.weights.layers[0].wq.data, weights.layers[0].wq.data, weights.layers[0].wq.bytes()) == 0);
    }

    void a_tied_output_is_written_once()
    {
        PYRAMID_REQUIRE_SHARED(vocab_path, kVocabulary);
        ModelConfig config = file_config();
        config.tied_output = true;
        const ModelWeights weights = generate_model_weights(config, SyntheticStorage(TensorType::F16), 3, true);
        TempFile file;
        write_gguf_model(file.path, weights, GgufFile::open(vocab_path));
        const GgufFile read = GgufFile::open(file.path);
        QVERIFY(read.find_tensor("token_embd.weight"));
        QVERIFY(!read.find_tensor("output.weight"));
        QCOMPARE(read.tensors().size(), size_t(2 + 9 * config.n_layers));
        const LoadedModel loaded = load_model_files(file.path);
        QVERIFY(loaded.weights.config.tied_output);
        QCOMPARE(loaded.weights.output.data, loaded.weights.token_embedding.data);
    }

    void refusals_name_the_problem_and_leave_no_file()
    {
        PYRAMID_REQUIRE_SHARED(vocab_path, kVocabulary);
        PYRAMID_REQUIRE_SHARED(stories, "models/stories260K.gguf");
        const GgufFile vocabulary = GgufFile::open(vocab_path);
        const ModelWeights weights = generate_model_weights(file_config(), SyntheticStorage(TensorType::F16), 1, true);
        TempFile file;

        ModelConfig other_size = file_config();
        other_size.n_vocab = 4096;
        const ModelWeights small_vocab = generate_model_weights(other_size, SyntheticStorage(TensorType::F16), 1, true);
        QString e = error_of([&] { write_gguf_model(file.path, small_vocab, vocabulary); });
        QVERIFY2(e.contains("32000 tokens") && e.contains("4096"), qPrintable(e));

        // stories260K's own vocabulary has 512 tokens.
        e = error_of([&] { write_gguf_model(file.path, weights, GgufFile::open(stories)); });
        QVERIFY2(e.contains("512 tokens") && e.contains("32000"), qPrintable(e));

        const ModelWeights off_host = generate_model_weights(file_config(), SyntheticStorage(TensorType::F16), 1, false);
        e = error_of([&] { write_gguf_model(file.path, off_host, vocabulary); });
        QVERIFY2(e.contains("token_embd.weight") && e.contains("no data on the host"), qPrintable(e));

        // As a Hugging Face checkpoint loads (generated weights in that layout are written: their
        // values mean nothing).
        ModelWeights hf_pairs = generate_model_weights(file_config(), SyntheticStorage(TensorType::F16), 1, true);
        hf_pairs.config.rope_layout = RopeLayout::RotateHalf;
        hf_pairs.synthetic.reset();
        e = error_of([&] { write_gguf_model(file.path, hf_pairs, vocabulary); });
        QVERIFY2(e.contains("interleaved"), qPrintable(e));
        QVERIFY(file.folder_empty());

        const std::filesystem::path nowhere = file.dir / "no-such-folder" / "model.gguf";
        e = error_of([&] { write_gguf_model(nowhere, weights, vocabulary); });
        QVERIFY2(e.contains(QString::fromStdString(nowhere.string())) && e.contains("cannot create"), qPrintable(e));
        QVERIFY(file.folder_empty());
    }
};

QTEST_APPLESS_MAIN(GgufWriterTest)
#include "gguf_writer_test.moc"
