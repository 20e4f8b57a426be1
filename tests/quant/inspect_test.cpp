// pyramid-inspect run as a program: its dequantization digests equal ggml's (the kquants JSON
// files), its summary counts the tensors and types those files hold, its GPU estimate counts the
// KV cache type asked for, it reads Hugging Face folders, and it fails with pyramid-cli's exit
// codes.
#include <QtTest>

#include <QCryptographicHash>
#include <QProcess>
#include <QRegularExpression>

#include <cmath>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "gguf_builder.h"
#include "model/safetensors_file.h"
#include "shared_data.h"

using namespace pyramid;

namespace {

struct Run {
    int exit_code = -1;
    QString out, err;
};

Run inspect(const QStringList& args, const QByteArray& input = {})
{
    QProcess p;
    p.start(PYRAMID_INSPECT_PATH, args);
    p.write(input);
    p.closeWriteChannel();
    if (!p.waitForFinished(120000))
        return {};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

nlohmann::json read_json(const std::filesystem::path& path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

// type -> tensors, from the summary's "Storage by type" table (its "total" row included).
std::map<QString, int> type_counts(const QString& summary)
{
    std::map<QString, int> counts;
    const QString section = summary.section("Storage by type", 1).section("\n\n", 0, 0);
    static const QRegularExpression row(R"(^  (\S+)\s+(\d+)\s)", QRegularExpression::MultilineOption);
    for (auto it = row.globalMatch(section); it.hasNext();) {
        const auto m = it.next();
        counts[m.captured(1)] = m.captured(2).toInt();
    }
    return counts;
}

// Bytes of a size as the report prints it ("12.6 MiB").
double bytes_of(const QString& size)
{
    const QStringList parts = size.split(' ');
    const QStringList units{"bytes", "KiB", "MiB", "GiB"};
    return parts.value(0).toDouble() * std::pow(1024.0, units.indexOf(parts.value(1)));
}

// The CUDA column of the memory estimate, row name -> bytes.
std::map<QString, double> cuda_memory(const QString& report)
{
    std::map<QString, double> rows;
    static const QRegularExpression row(R"(^  (\S.*?)\s{2,}(\S+ \w+|-)\s+(\S+ \w+)$)",
                                        QRegularExpression::MultilineOption);
    for (auto it = row.globalMatch(report.section("Memory for a", 1)); it.hasNext();) {
        const auto m = it.next();
        rows[m.captured(1)] = bytes_of(m.captured(3));
    }
    return rows;
}

} // namespace

class InspectTest : public QObject {
    Q_OBJECT
private slots:
    void digests_equal_ggml_data()
    {
        QTest::addColumn<QString>("base");
        QTest::newRow("q4_k_m") << "models/kquants/synthetic-llama-q4_k_m";
        QTest::newRow("mixed") << "models/kquants/synthetic-llama-mixed";
    }

    void digests_equal_ggml()
    {
        QFETCH(QString, base);
        PYRAMID_REQUIRE_SHARED(model, base.toStdString() + ".gguf");
        PYRAMID_REQUIRE_SHARED(json_path, base.toStdString() + ".dequant.json");
        const nlohmann::json expected = read_json(json_path)["tensors"];

        const Run run = inspect({"--dequant-sha256", QString::fromStdString(model.string())});
        QCOMPARE(run.exit_code, 0);
        const QStringList lines = run.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), qsizetype(expected.size()));
        for (size_t i = 0; i < expected.size(); ++i) {
            const QStringList fields = lines[qsizetype(i)].split(' ');
            QCOMPARE(fields.size(), qsizetype(3));
            QCOMPARE(fields[0].toStdString(), expected[i]["name"].get<std::string>());
            QCOMPARE(fields[1].toStdString(), expected[i]["type"].get<std::string>());
            QCOMPARE(fields[2].toStdString(), expected[i]["dequant_sha256"].get<std::string>());
        }
    }

    void summary_counts_tensors_and_types_data()
    {
        QTest::addColumn<QString>("base");
        QTest::newRow("q4_k_m") << "models/kquants/synthetic-llama-q4_k_m";
        QTest::newRow("mixed") << "models/kquants/synthetic-llama-mixed";
    }

    void summary_counts_tensors_and_types()
    {
        QFETCH(QString, base);
        PYRAMID_REQUIRE_SHARED(model, base.toStdString() + ".gguf");
        PYRAMID_REQUIRE_SHARED(json_path, base.toStdString() + ".dequant.json");
        const nlohmann::json json = read_json(json_path);

        const Run run = inspect({QString::fromStdString(model.string()), "--context", "512"});
        QCOMPARE(run.exit_code, 0);
        QVERIFY2(run.out.contains(QString("Tensors: %1 ").arg(json["n_tensors"].get<int>())), qPrintable(run.out));

        std::map<QString, int> expected;
        for (const auto& t : json["tensors"])
            ++expected[QString::fromStdString(t["type"].get<std::string>())];
        expected["total"] = json["n_tensors"].get<int>();
        const auto counts = type_counts(run.out);
        QCOMPARE(counts, expected);
        if (base.endsWith("q4_k_m"))  // llama.cpp's Q4_K_M mix on a 4-layer model
            QCOMPARE(counts, (std::map<QString, int>{{"f32", 9}, {"q4_K", 25}, {"q6_K", 5}, {"total", 39}}));

        // The hyperparameters and tokenizer the README documents, and the estimate asked for.
        for (const char* pattern : {R"(layers\s+4\n)", R"(key/value heads\s+2 )", R"(context length\s+4096\n)",
                                    R"(vocabulary size\s+32000\n)", R"(BOS\s+1 <s>)", R"(EOS\s+2 </s>)",
                                    R"(Memory for a 512-token prompt)", R"(KV cache, PyramidInfer)"})
            QVERIFY2(run.out.contains(QRegularExpression(pattern)), pattern);

        // The CUDA totals count the activations and scratch too (each figure printed to 0.1 unit).
        const auto cuda = cuda_memory(run.out);
        QCOMPARE(cuda.size(), size_t(6));
        const double fixed = cuda.at("weights") + cuda.at("activations and scratch");
        QVERIFY(std::abs(cuda.at("total, full") - fixed - cuda.at("KV cache, full")) < 0.16 * (1 << 20));
        QVERIFY(std::abs(cuda.at("total, PyramidInfer") - fixed - cuda.at("KV cache, PyramidInfer")) < 0.16 * (1 << 20));
        // Quantized projections expand into tiles as large as the largest of them in fp16.
        double largest = 0;
        for (const auto& t : json["tensors"]) {
            const std::string name = t["name"], type = t["type"];
            if (type != "f32" && type != "f16" && type != "bf16" && name != "token_embd.weight")
                largest = std::max(largest, 2.0 * t["n_elements"].get<double>());
        }
        static const QRegularExpression tiles(R"(, (\S+ \w+) of dequantization tiles)");
        const double printed = bytes_of(tiles.match(run.out).captured(1));
        QVERIFY2(std::abs(printed - largest) <= 0.05 * (1 << 20), qPrintable(QString::number(printed)));
    }

    // The CUDA column counts the cache as a GPU stores the type asked for (f32 as fp16, q8 and q4
    // as they are), and the GPU table gives each memory size a row per type a GPU stores.
    void gpu_estimate_counts_the_kv_type_data()
    {
        QTest::addColumn<QString>("type");
        QTest::addColumn<int>("cpu_entry");   // bytes of a layer's key and value of one token:
        QTest::addColumn<int>("cuda_entry");  // 2 KV heads of 64 values, keys and values
        QTest::newRow("f32") << "f32" << 2 * 128 * 4 << 2 * 128 * 2;
        QTest::newRow("f16") << "f16" << 2 * 128 * 2 << 2 * 128 * 2;
        QTest::newRow("q8") << "q8" << 2 * 4 * 34 << 2 * 4 * 34;
        QTest::newRow("q4") << "q4" << 2 * 4 * 18 << 2 * 4 * 18;
    }

    void gpu_estimate_counts_the_kv_type()
    {
        QFETCH(QString, type);
        QFETCH(int, cpu_entry);
        QFETCH(int, cuda_entry);
        PYRAMID_REQUIRE_SHARED(model, "models/kquants/synthetic-llama-q4_k_m.gguf");
        const Run run = inspect({QString::fromStdString(model.string()), "--context", "512", "--kv-type", type,
                                 "--gpu-memory", "0.07,6"});
        QCOMPARE(run.exit_code, 0);
        // 4 layers of 512 entries, printed to 0.1 of a unit.
        const double full_cpu = 4.0 * 512 * cpu_entry, full_cuda = 4.0 * 512 * cuda_entry;
        static const QRegularExpression full_row(R"(^  KV cache, full\s+(\S+ \w+)\s+(\S+ \w+)$)",
                                                 QRegularExpression::MultilineOption);
        const auto m = full_row.match(run.out);
        QVERIFY2(m.hasMatch(), qPrintable(run.out));
        QVERIFY2(std::abs(bytes_of(m.captured(1)) - full_cpu) < 0.051 * 1024, qPrintable(m.captured(0)));
        QVERIFY2(std::abs(bytes_of(m.captured(2)) - full_cuda) < 0.051 * 1024, qPrintable(m.captured(0)));
        QVERIFY2(run.out.contains(QString("%1 on the GPU").arg(cuda_entry)), qPrintable(run.out));

        // Rows per size: f16, q8, q4. In 0.07 GiB fewer bits hold a longer prompt; in 6 GiB all
        // hold the model's context.
        std::map<QString, int> in_small;
        static const QRegularExpression fit_row(R"(^  (.{12})  (f16|q8|q4)\s+([\d,]+)\s+([\d,]+)$)",
                                                QRegularExpression::MultilineOption);
        QString size;
        int rows = 0;
        for (auto it = fit_row.globalMatch(run.out.section("Longest prompt", 1)); it.hasNext(); ++rows) {
            const auto r = it.next();
            if (!r.captured(1).trimmed().isEmpty())
                size = r.captured(1).trimmed();
            const int full = QString(r.captured(3)).remove(',').toInt();
            if (size == "0.07 GiB")
                in_small[r.captured(2)] = full;
            else
                QCOMPARE(full, 4096);
        }
        QCOMPARE(rows, 6);
        QVERIFY2(in_small.at("f16") < in_small.at("q8") && in_small.at("q8") < in_small.at("q4"),
                 qPrintable(run.out.section("Longest prompt", 1)));
    }

    void hf_folder_digests_are_of_its_float_values()
    {
        // An F32 folder's dequantization is its own bytes: the digest is their SHA-256.
        PYRAMID_REQUIRE_SHARED(folder, "models/stories260K-hf");
        const Run summary = inspect({QString::fromStdString(folder.string())});
        QCOMPARE(summary.exit_code, 0);
        QVERIFY(summary.out.contains("safetensors (Hugging Face folder)"));

        const Run run = inspect({"--dequant-sha256", QString::fromStdString(folder.string())});
        QCOMPARE(run.exit_code, 0);
        const SafetensorsFile file = SafetensorsFile::open(folder / "model.safetensors");
        std::map<std::string, std::string> expected;
        for (const SafetensorsTensor& t : file.tensors())
            expected[t.name] = "f32 " + QCryptographicHash::hash(QByteArrayView(reinterpret_cast<const char*>(t.data),
                                                                                 qsizetype(t.nbytes)),
                                                                  QCryptographicHash::Sha256)
                                            .toHex()
                                            .toStdString();
        std::map<std::string, std::string> got;
        for (const QString& line : run.out.split('\n', Qt::SkipEmptyParts))
            got[line.section(' ', 0, 0).toStdString()] = line.section(' ', 1).toStdString();
        QCOMPARE(got, expected);
    }

    void errors_use_the_cli_exit_codes()
    {
        PYRAMID_REQUIRE_SHARED(model, "models/kquants/synthetic-llama-q4_k_m.gguf");
        const QString path = QString::fromStdString(model.string());
        const Run missing = inspect({"/nonexistent/model.gguf"});
        QCOMPARE(missing.exit_code, 3);
        QVERIFY(missing.err.contains("/nonexistent/model.gguf"));
        QCOMPARE(inspect({}).exit_code, 2);
        QCOMPARE(inspect({path, "--preset", "no-such-preset"}).exit_code, 2);
        const Run too_long = inspect({path, "--context", "5000"});
        QCOMPARE(too_long.exit_code, 2);
        QVERIFY(too_long.err.contains("4096"));

        PYRAMID_REQUIRE_SHARED(not_gguf, "models/tok512.model");
        const Run wrong = inspect({QString::fromStdString(not_gguf.string())});
        QCOMPARE(wrong.exit_code, 3);
        QVERIFY(wrong.err.contains("GGUF"));
    }

    void tokenize_prints_the_ids_of_standard_input()
    {
        PYRAMID_REQUIRE_DEFAULT_MODEL(smollm);
        // Ids as llama.cpp's llama-tokenize gives them (../shared/data/smollm2-tokenizer-vectors.json).
        const Run r = inspect({QString::fromStdString(smollm.string()), "--tokenize"}, "Hello, world!");
        QCOMPARE(r.exit_code, 0);
        QCOMPARE(r.out, QString("[19556, 28, 905, 17]\n"));
        // A control token's spelling is text, never the control token (id 1).
        const Run control = inspect({QString::fromStdString(smollm.string()), "--tokenize"}, "<|im_start|>");
        QCOMPARE(control.exit_code, 0);
        QVERIFY(!control.out.contains("[1,") && control.out.startsWith("["));
        const Run empty = inspect({QString::fromStdString(smollm.string()), "--tokenize"}, "");
        QCOMPARE(empty.out, QString("[]\n"));
    }

    // Models the engine refuses: the report of what could be read, then the engine's error
    // and exit 3, before any estimate sized by absurd hyperparameters (2^31-1 layers once took
    // 10 GB here).
    void refused_models_exit_3_after_the_readable_part_data()
    {
        QTest::addColumn<int>("defect");
        QTest::addColumn<QString>("error");
        QTest::newRow("2^31-1 layers") << 0 << "blk.1.";
        QTest::newRow("BPE without merges") << 1 << "tokenizer.ggml.merges";
        QTest::newRow("vocabulary beyond the embedding") << 2 << "but token_embd.weight has 8 rows";
    }

    void refused_models_exit_3_after_the_readable_part()
    {
        QFETCH(int, defect);
        QFETCH(QString, error);
        test::GgufBuilder g = test::tiny_llama_gguf(1);
        switch (defect) {
        case 0:
            g.remove_key("llama.block_count");
            g.add_u32("llama.block_count", 2147483647u);
            break;
        case 1:
            g.remove_key("tokenizer.ggml.model");
            g.add_string("tokenizer.ggml.model", "gpt2");
            break;
        case 2: {
            g.remove_key("tokenizer.ggml.tokens");
            g.remove_key("tokenizer.ggml.scores");
            g.remove_key("tokenizer.ggml.token_type");
            std::vector<std::string> tokens{"<unk>", "<s>", "</s>"};
            for (int i = 0; i < 61; ++i)
                tokens.push_back("t" + std::to_string(i));
            g.add_string_array("tokenizer.ggml.tokens", tokens);
            g.add_f32_array("tokenizer.ggml.scores", std::vector<float>(tokens.size(), 0.0f));
            g.add_i32_array("tokenizer.ggml.token_type", std::vector<int32_t>(tokens.size(), 1));
            break;
        }
        }
        QTemporaryDir dir;
        const QString path = dir.filePath("refused.gguf");
        std::ofstream(path.toStdString(), std::ios::binary) << g.build();
        QElapsedTimer timer;
        timer.start();
        const Run r = inspect({path});
        QCOMPARE(r.exit_code, 3);
        QVERIFY2(r.err.contains(error), qPrintable(r.err));
        if (defect != 1) {  // (a vocabulary without merges cannot even be read for the report)
            QVERIFY2(r.err.contains("the engine cannot load this model"), qPrintable(r.err));
            QVERIFY2(r.out.contains("Tokenizer"), qPrintable(r.out));
        }
        QVERIFY2(timer.elapsed() < 10000, "the refusal took seconds: something sized by the hyperparameters ran");
    }
};

QTEST_APPLESS_MAIN(InspectTest)
#include "inspect_test.moc"
