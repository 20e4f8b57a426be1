// `pyramid-eval replay` as a user runs it: every golden file reproduces (exit 0, result JSON
// written), and a tampered copy fails with exit 1 naming each tampered field.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include <nlohmann/json.hpp>

#include "shared_data.h"

namespace {

struct ToolRun {
    int exit_code = -1;
    QString out, err;
};

ToolRun run_tool(const QStringList& args)
{
    QProcess process;
    process.start(QStringLiteral(PYRAMID_EVAL_EXE), args);
    ToolRun run;
    if (!process.waitForFinished(300000) || process.exitStatus() != QProcess::NormalExit)
        return run;
    run.exit_code = process.exitCode();
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

nlohmann::json read_json(const QString& path)
{
    std::ifstream in(path.toStdString());
    return nlohmann::json::parse(in);
}

} // namespace

class EvalReplayTest : public QObject {
    Q_OBJECT
private slots:
    void golden_files_match_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* name : {"full_cache", "reference_defaults", "aggressive_decay", "interval2_linear_recent40"})
            QTest::newRow(name) << QString("golden/%1.json").arg(name);
    }

    void golden_files_match()
    {
        QFETCH(QString, file);
        PYRAMID_REQUIRE_SHARED(case_path, file.toStdString());
        PYRAMID_REQUIRE_SHARED(model_path, "models/stories260K.gguf");
        QTemporaryDir dir;
        const QString out = dir.filePath("result.json");
        const ToolRun run = run_tool({"replay", QString::fromStdString(case_path.string()), "--out", out});
        QVERIFY2(run.exit_code == 0, qPrintable(run.err));
        QVERIFY(run.out.contains("matches"));
        // The result is in the golden format and holds what was replayed.
        const nlohmann::json expected = read_json(QString::fromStdString(case_path.string()));
        const nlohmann::json result = read_json(out);
        QCOMPARE(result.at("prefill").at("kv_lengths"), expected.at("prefill").at("kv_lengths"));
        QCOMPARE(result.at("generation").at("greedy_tokens"), expected.at("generation").at("greedy_tokens"));
    }

    void tampered_case_fails_naming_each_field()
    {
        PYRAMID_REQUIRE_SHARED(case_path, "golden/reference_defaults.json");
        PYRAMID_REQUIRE_SHARED(model_path, "models/stories260K.gguf");
        nlohmann::json tampered = read_json(QString::fromStdString(case_path.string()));
        tampered["prefill"]["kv_lengths"][2] = tampered["prefill"]["kv_lengths"][2].get<int>() + 1;
        tampered["generation"]["greedy_tokens"][5] = tampered["generation"]["greedy_tokens"][5].get<int>() ^ 1;
        QTemporaryDir dir;
        const QString path = dir.filePath("tampered.json");
        std::ofstream(path.toStdString()) << tampered.dump();

        // The model is found through --model here, as a user with their own copy would do.
        const ToolRun run = run_tool({"replay", path, "--model", QString::fromStdString(model_path.string())});
        QCOMPARE(run.exit_code, 1);
        QVERIFY2(run.err.contains("prefill.kv_lengths differs"), qPrintable(run.err));
        QVERIFY2(run.err.contains("generation.greedy_tokens differ first at step 5"), qPrintable(run.err));
        QVERIFY(!run.err.contains("prefill.kv_positions"));  // untouched fields are not listed
        QVERIFY(run.out.contains("2 field(s) differ"));
    }

    // A case with only the greedy tokens checks those, and nothing it does not hold.
    void a_case_without_its_optional_parts_checks_the_rest()
    {
        PYRAMID_REQUIRE_SHARED(case_path, "golden/full_cache.json");
        nlohmann::json partial = read_json(QString::fromStdString(case_path.string()));
        partial.erase("prefill");
        for (const char* key : {"kv_lengths_after_each_step", "final_kv_positions", "final_logits"})
            partial["generation"].erase(key);
        QTemporaryDir dir;
        const QString path = dir.filePath("partial.json");
        std::ofstream(path.toStdString()) << partial.dump();
        ToolRun run = run_tool({"replay", path});
        QVERIFY2(run.exit_code == 0, qPrintable(run.err));

        partial["generation"]["greedy_tokens"][3] = partial["generation"]["greedy_tokens"][3].get<int>() ^ 1;
        std::ofstream(path.toStdString()) << partial.dump();
        run = run_tool({"replay", path});
        QCOMPARE(run.exit_code, 1);
        QVERIFY2(run.err.contains("greedy_tokens differ first at step 3"), qPrintable(run.err));
    }

    void unknown_model_is_a_usage_error()
    {
        PYRAMID_REQUIRE_SHARED(case_path, "golden/full_cache.json");
        nlohmann::json renamed = read_json(QString::fromStdString(case_path.string()));
        renamed["model"] = "no-such-model.gguf";
        QTemporaryDir dir;
        const QString path = dir.filePath("renamed.json");
        std::ofstream(path.toStdString()) << renamed.dump();
        const ToolRun run = run_tool({"replay", path});
        QCOMPARE(run.exit_code, 2);
        QVERIFY2(run.err.contains("no-such-model.gguf"), qPrintable(run.err));
    }
};

QTEST_GUILESS_MAIN(EvalReplayTest)
#include "test_eval_replay.moc"
