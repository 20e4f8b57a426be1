// `pyramid-eval ppl` end to end on stories260K with a tiny protocol (P=32, C=8, 2 windows):
// finite perplexities, the full cache's perplexity equal to one computed here without the
// decode path (a fresh prefill per scored token), equal KV bytes for the matched baselines,
// the JSON fields and non-empty plots; a sweep run in two parts and joined by `ppl-merge`
// equal to the same sweep in one process; and SmolLM2 under llama.cpp's protocol, next to the
// perplexity llama.cpp gives for the same file and windows.
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "generate/inference_session.h"
#include "model/model.h"
#include "shared_data.h"

using namespace pyramid;

namespace {

constexpr int kPrefill = 32, kContinuation = 8, kWindows = 2;

// -log softmax(logits)[target], written out here so the check does not share the tool's code.
double nll(const std::vector<float>& logits, int32_t target)
{
    double top = logits[0];
    for (float v : logits)
        top = std::max(top, static_cast<double>(v));
    double sum = 0.0;
    for (float v : logits)
        sum += std::exp(v - top);
    return top + std::log(sum) - logits[static_cast<size_t>(target)];
}

const nlohmann::json* run_labelled(const nlohmann::json& report, const std::string& label)
{
    for (const auto& run : report.at("runs"))
        if (run.at("label") == label)
            return &run;
    return nullptr;
}

// Writes the first 4000 bytes of `source` to `path` and returns them: a short piece of the
// text keeps tokenization fast and still holds both windows.
std::string write_text_head(const std::filesystem::path& source, const QString& path)
{
    std::string text(4000, '\0');
    std::ifstream(source).read(text.data(), static_cast<std::streamsize>(text.size()));
    std::ofstream(path.toStdString()) << text;
    return text;
}

// Runs pyramid-eval with `arguments`; returns its exit code, stderr in `errors`.
int run_eval(const QStringList& arguments, QString* errors = nullptr)
{
    QProcess process;
    process.start(QStringLiteral(PYRAMID_EVAL_EXE), arguments);
    if (!process.waitForFinished(300000))
        return -1;
    if (errors)
        *errors = QString::fromUtf8(process.readAllStandardError());
    return process.exitCode();
}

nlohmann::json read_json(const QString& path)
{
    std::ifstream in(path.toStdString());
    return nlohmann::json::parse(in);
}

} // namespace

class EvalPplTest : public QObject {
    Q_OBJECT
private slots:
    void tiny_sweep_end_to_end()
    {
        PYRAMID_REQUIRE_SHARED(model_path, "models/stories260K.gguf");
        PYRAMID_REQUIRE_SHARED(text_source, "data/tinystories_val_prefix.txt");
        QTemporaryDir dir;
        const QString text_path = dir.filePath("text.txt"), json_path = dir.filePath("out.json");
        const std::string text = write_text_head(text_source, text_path);

        QProcess process;
        process.start(QStringLiteral(PYRAMID_EVAL_EXE),
                      {"ppl", "--model", QString::fromStdString(model_path.string()), "--text", text_path, "-P",
                       QString::number(kPrefill), "-C", QString::number(kContinuation), "--windows",
                       QString::number(kWindows), "--min-context", "4", "--sweep-decay", "0.5", "--sweep-budget",
                       "20", "--json", json_path, "--plot-dir", dir.filePath("plots")});
        QVERIFY(process.waitForFinished(300000));
        const QString out = QString::fromUtf8(process.readAllStandardOutput());
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        QVERIFY(out.contains("| full | full |"));
        QVERIFY(out.contains("At equal KV bytes"));

        std::ifstream json_in(json_path.toStdString());
        const nlohmann::json report = nlohmann::json::parse(json_in);
        QCOMPARE(report.at("protocol").at("prefill").get<int>(), kPrefill);
        QCOMPARE(report.at("runs").size(), size_t(1 + 3 + 2));
        for (const auto& run : report.at("runs")) {
            for (const char* key : {"label", "series", "policy", "parameters", "config", "perplexity", "mean_nll",
                                    "scored_tokens", "window_mean_nll", "prefill_kv_lengths",
                                    "mean_kv_entries_per_layer", "mean_kv_entries", "mean_kv_bytes",
                                    "mean_full_kv_bytes", "kv_fraction", "delta_nll_vs_full"})
                QVERIFY2(run.contains(key), key);
            const double ppl = run.at("perplexity").get<double>();
            QVERIFY2(std::isfinite(ppl) && ppl > 1.0, run.at("label").get<std::string>().c_str());
            QCOMPARE(run.at("scored_tokens").get<int>(), kWindows * kContinuation);
            QCOMPARE(run.at("mean_kv_entries_per_layer").size(), size_t(5));
        }

        // PyramidInfer really compressed, and the baselines kept its bytes, spread evenly over the layers.
        const nlohmann::json* pyramid = run_labelled(report, "pyramid d=0.5");
        const nlohmann::json* local = run_labelled(report, "local @ d=0.5");
        const nlohmann::json* h2o = run_labelled(report, "h2o @ d=0.5");
        QVERIFY(pyramid && local && h2o);
        const double fraction = pyramid->at("kv_fraction").get<double>();
        QVERIFY(fraction < 0.99);
        for (const nlohmann::json* baseline : {local, h2o}) {
            QVERIFY(std::abs(baseline->at("kv_fraction").get<double>() - fraction) < 0.02);
            const auto& per_layer = baseline->at("mean_kv_entries_per_layer");
            QCOMPARE(per_layer.front(), per_layer.back());
        }
        // A fixed budget of 20 caps every layer at 20 entries.
        for (double v : run_labelled(report, "local b=20")->at("mean_kv_entries_per_layer"))
            QVERIFY(v <= 20.0);

        // Full cache: recompute each scored token's NLL with a fresh prefill of everything before it.
        auto model = Model::open(model_path, BackendPreference::Cpu);
        const std::vector<int32_t> tokens = model->tokenizer().encode(text);
        double total = 0.0;
        for (int w = 0; w < kWindows; ++w) {
            std::vector<int32_t> window{model->tokenizer().bos_id()};
            const auto first = tokens.begin() + w * (kPrefill + kContinuation - 1);
            window.insert(window.end(), first, first + (kPrefill + kContinuation - 1));
            double window_sum = 0.0;
            for (int t = kPrefill; t < kPrefill + kContinuation; ++t) {
                InferenceSession session(model->backend(), CompressionConfig::full_cache());
                window_sum += nll(session.prefill(std::span(window).first(static_cast<size_t>(t))), window[t]);
            }
            const double mine = window_sum / kContinuation;
            const double tool = run_labelled(report, "full")->at("window_mean_nll")[w].get<double>();
            QVERIFY2(std::abs(mine - tool) < 1e-4, qPrintable(QString("window %1: %2 vs %3").arg(w).arg(mine).arg(tool)));
            total += window_sum;
        }
        const double expected_ppl = std::exp(total / (kWindows * kContinuation));
        const double tool_ppl = run_labelled(report, "full")->at("perplexity").get<double>();
        QVERIFY2(std::abs(tool_ppl - expected_ppl) < 1e-4 * expected_ppl,
                 qPrintable(QString("%1 vs %2").arg(tool_ppl).arg(expected_ppl)));

        for (const char* name : {"ppl_vs_kv", "ppl_vs_kv_equal_bytes", "kv_lengths"}) {
            const QString base = dir.filePath(QString("plots/%1").arg(name));
            QVERIFY(QFileInfo(base + ".svg").size() > 1000);
            QFile svg(base + ".svg");
            QVERIFY(svg.open(QIODevice::ReadOnly));
            QVERIFY(svg.readAll().contains("<svg"));
            const QImage png(base + ".png");
            QCOMPARE(png.size(), QSize(960, 600));
        }
    }

    void a_sweep_run_in_parts_merges_into_the_one_process_report()
    {
        PYRAMID_REQUIRE_SHARED(model_path, "models/stories260K.gguf");
        PYRAMID_REQUIRE_SHARED(text_source, "data/tinystories_val_prefix.txt");
        QTemporaryDir dir;
        const QString text_path = dir.filePath("text.txt");
        write_text_head(text_source, text_path);
        const QStringList common{"ppl", "--model", QString::fromStdString(model_path.string()), "--text", text_path,
                                 "-P", QString::number(kPrefill), "-C", QString::number(kContinuation), "--windows",
                                 QString::number(kWindows), "--min-context", "4"};
        QString errors;
        QVERIFY2(run_eval(common + QStringList{"--sweep-fraction", "0.75,0.25", "--json", dir.filePath("whole.json")},
                          &errors) == 0, qPrintable(errors));
        QVERIFY2(run_eval(common + QStringList{"--sweep-fraction", "0.75", "--json", dir.filePath("a.json")}, &errors) == 0,
                 qPrintable(errors));
        QVERIFY2(run_eval(common + QStringList{"--sweep-fraction", "0.25", "--json", dir.filePath("b.json")}, &errors) == 0,
                 qPrintable(errors));
        // The merged file replaces one of its parts, as docs/quality's commands do.
        QVERIFY2(run_eval({"ppl-merge", dir.filePath("a.json"), dir.filePath("b.json"), "--json", dir.filePath("a.json"),
                           "--plot-dir", dir.filePath("plots")},
                          &errors) == 0,
                 qPrintable(errors));
        const nlohmann::json whole = read_json(dir.filePath("whole.json")), merged = read_json(dir.filePath("a.json"));
        QCOMPARE(merged.at("runs").size(), size_t(1 + 2 * 4));  // the full cache once, four baselines per fraction
        QCOMPARE(merged.at("runs").dump(), whole.at("runs").dump());
        QCOMPARE(merged.at("protocol").dump(), whole.at("protocol").dump());
        QVERIFY(QImage(dir.filePath("plots/ppl_vs_kv.png")).size() == QSize(960, 600));

        // A part of other windows is refused, naming what differs, and nothing is written.
        QVERIFY2(run_eval({"ppl", "--model", QString::fromStdString(model_path.string()), "--text", text_path, "-P",
                           QString::number(kPrefill + 1), "-C", QString::number(kContinuation), "--windows",
                           QString::number(kWindows), "--policy", "full", "--json", dir.filePath("other.json")},
                          &errors) == 0,
                 qPrintable(errors));
        QCOMPARE(run_eval({"ppl-merge", dir.filePath("b.json"), dir.filePath("other.json"), "--json",
                           dir.filePath("refused.json")},
                          &errors),
                 2);
        QVERIFY2(errors.contains("report 2 scored other windows"), qPrintable(errors));
        QVERIFY(!QFileInfo::exists(dir.filePath("refused.json")));
    }

    void smollm2_matches_llama_cpp_perplexity()
    {
        PYRAMID_REQUIRE_DEFAULT_MODEL(model_path);
        PYRAMID_REQUIRE_SHARED(text_path, "data/wikitext-2-raw-v1.test.txt");
        QTemporaryDir dir;
        const QString json_path = dir.filePath("out.json");
        QProcess process;
        process.start(QStringLiteral(PYRAMID_EVAL_EXE),
                      {"ppl", "--model", QString::fromStdString(model_path.string()), "--text",
                       QString::fromStdString(text_path.string()), "--protocol", "llama.cpp", "--ctx", "512",
                       "--chunks", "4", "--policy", "full", "--json", json_path});
        QVERIFY(process.waitForFinished(600000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        std::ifstream json_in(json_path.toStdString());
        const nlohmann::json run = nlohmann::json::parse(json_in).at("runs").at(0);
        QCOMPARE(run.at("scored_tokens").get<int>(), 4 * 255);  // tokens 257..511 of each chunk
        // llama.cpp (llama-cpp-python 0.3.36's vendored source, CPU): llama-perplexity -m
        // SmolLM2-135M-Instruct.Q4_1.gguf -f wikitext-2-raw-v1.test.txt -c 512 --chunks 4 gives
        // "Final estimate: PPL = 22.5142" (docs/quality/smollm2-llama-cpp.md). Ours computes in
        // float32 from the dequantized weights, llama.cpp with Q8 activations: 0.5% apart at most.
        const double ppl = run.at("perplexity").get<double>();
        constexpr double kLlamaCpp = 22.5142;
        QVERIFY2(std::abs(ppl / kLlamaCpp - 1.0) < 0.005, QByteArray::number(ppl).constData());
    }
};

QTEST_GUILESS_MAIN(EvalPplTest)
#include "test_eval_ppl.moc"
