// Every golden file (float64 PyramidInfer reference on stories260K) reproduced through the
// same replay code path pyramid-eval uses: lengths, kept positions and greedy tokens exact,
// logits within 1e-4 relative.
#include <QtTest>

#include "eval/replay.h"
#include "model/model.h"
#include "shared_data.h"

using namespace pyramid;

class GoldenReplayTest : public QObject {
    Q_OBJECT
private slots:
    void replay_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* name : {"full_cache", "reference_defaults", "aggressive_decay", "interval2_linear_recent40"})
            QTest::newRow(name) << QString("golden/%1.json").arg(name);
    }

    void replay()
    {
        QFETCH(QString, file);
        PYRAMID_REQUIRE_SHARED(case_path, file.toStdString());
        PYRAMID_REQUIRE_SHARED(model_path, "models/stories260K.gguf");
        const ReplayRecord expected = load_replay_case(case_path.string());
        QCOMPARE(QString::fromStdString(expected.model), QString("stories260K.gguf"));
        auto model = Model::open(model_path, BackendPreference::Cpu);

        const ReplayRecord actual = run_replay(model->backend(), expected);
        const std::vector<std::string> diffs = compare_replay(expected, actual);
        for (const std::string& d : diffs)
            qWarning("%s: %s", qPrintable(file), d.c_str());
        QVERIFY(diffs.empty());
        // The tolerance is meaningful only if the fields were really produced.
        QCOMPARE(actual.kv_lengths_after_each_step.size(), expected.greedy_tokens.size());
        QVERIFY(relative_error(actual.prefill_last_logits, expected.prefill_last_logits) < 1e-4);
    }

    void comparison_reports_differences()
    {
        PYRAMID_REQUIRE_SHARED(case_path, "golden/reference_defaults.json");
        const ReplayRecord expected = load_replay_case(case_path.string());
        ReplayRecord tampered = expected;
        tampered.prefill_kv_lengths[2] += 1;
        tampered.greedy_tokens[5] ^= 1;
        tampered.final_logits[0] += 1.0f;
        const auto diffs = compare_replay(expected, tampered);
        QCOMPARE(diffs.size(), size_t(3));
    }
};

QTEST_APPLESS_MAIN(GoldenReplayTest)
#include "test_golden_replay.moc"
