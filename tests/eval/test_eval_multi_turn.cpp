// `pyramid-eval multiturn` as a user runs it: a per-turn table and JSON whose full-cache
// control shows extend and rebuild agreeing exactly, and bad options refused.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include <nlohmann/json.hpp>

#include "shared_data.h"

class EvalMultiTurnTest : public QObject {
    Q_OBJECT

    static int run(const QStringList& args, QString* out = nullptr)
    {
        QProcess process;
        process.start(QStringLiteral(PYRAMID_EVAL_EXE), args);
        if (!process.waitForFinished(300000) || process.exitStatus() != QProcess::NormalExit)
            return -1;
        if (out)
            *out = QString::fromUtf8(process.readAllStandardOutput());
        return process.exitCode();
    }

private slots:
    void full_cache_modes_agree()
    {
        PYRAMID_REQUIRE_SHARED(model, "models/stories260K.gguf");
        PYRAMID_REQUIRE_SHARED(text, "data/tinystories_val_prefix.txt");
        QTemporaryDir dir;
        const QString json = dir.filePath("multi.json");
        QString table;
        QCOMPARE(run({"multiturn", "--model", QString::fromStdString(model.string()), "--text",
                      QString::fromStdString(text.string()), "--transcripts", "2", "--turns", "2", "--prompt-tokens",
                      "40", "--reply-tokens", "10", "--policy", "full", "--json", json},
                     &table),
                 0);
        QVERIFY(table.contains("| 2 | 91 |"));  // BOS + 40 + 10 + 40 tokens by turn 2
        std::ifstream in(json.toStdString());
        const auto result = nlohmann::json::parse(in);
        QCOMPARE(result.at("per_turn").size(), size_t(2));
        for (const auto& turn : result.at("per_turn")) {
            QCOMPARE(turn.at("argmax_agreement").get<double>(), 1.0);
            QVERIFY(std::abs(turn.at("ppl_extend").get<double>() - turn.at("ppl_rebuild").get<double>()) < 1e-3);
        }
    }

    void bad_options_are_refused()
    {
        PYRAMID_REQUIRE_SHARED(text, "data/tinystories_val_prefix.txt");
        QCOMPARE(run({"multiturn", "--text", QString::fromStdString(text.string()), "--turns", "0"}), 2);
        QCOMPARE(run({"multiturn", "--text", QString::fromStdString(text.string()), "--decay-ratio", "1.5"}), 2);
    }
};

QTEST_GUILESS_MAIN(EvalMultiTurnTest)
#include "test_eval_multi_turn.moc"
