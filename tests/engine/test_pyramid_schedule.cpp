// The per-layer lengths PyramidInfer produces depend only on the prompt length and the
// config: the planner must predict every golden file's lengths, prefill and each step.
#include <QtTest>

#include "eval/replay.h"
#include "kv/pyramid_schedule.h"
#include "shared_data.h"

using namespace pyramid;

class PyramidScheduleTest : public QObject {
    Q_OBJECT
private slots:
    void schedules()
    {
        QCOMPARE(decay_schedule(DecaySchedule::Cosine, 0, 32, 0.9), 1.0);
        // Linear rises from d at layer 0 (the golden interval2_linear case selects at layer 0).
        QCOMPARE(decay_schedule(DecaySchedule::Linear, 0, 32, 0.9), 0.9);
        QVERIFY(qFuzzyCompare(decay_schedule(DecaySchedule::Cosine, 16, 32, 0.5), 0.75));
        QCOMPARE(decay_schedule(DecaySchedule::Constant, 7, 32, 0.3), 0.3);
        QCOMPARE(prefill_keep_count(100, 64, 0.9), 90);
        QCOMPARE(prefill_keep_count(100, 95, 0.9), 100);  // would fall below the minimum: no selection
        QCOMPARE(prefill_keep_count(50, 64, 0.5), 50);
    }

    void plan_matches_golden_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* name : {"reference_defaults", "aggressive_decay", "interval2_linear_recent40"})
            QTest::newRow(name) << QString("golden/%1.json").arg(name);
    }

    void plan_matches_golden()
    {
        QFETCH(QString, file);
        PYRAMID_REQUIRE_SHARED(path, file.toStdString());
        const ReplayRecord golden = load_replay_case(path.string());
        const int layers = static_cast<int>(golden.prefill_kv_lengths.size());
        const auto plan = plan_pyramid_lengths(golden.config.pyramid, layers,
                                               static_cast<int>(golden.prompt_tokens.size()),
                                               static_cast<int>(golden.greedy_tokens.size()));
        QCOMPARE(plan.after_prefill, golden.prefill_kv_lengths);
        QCOMPARE(plan.after_step, golden.kv_lengths_after_each_step);
    }
};

QTEST_APPLESS_MAIN(PyramidScheduleTest)
#include "test_pyramid_schedule.moc"
