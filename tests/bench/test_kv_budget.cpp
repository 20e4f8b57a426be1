// pyramid-bench's KV budget on a GPU (kv_budget.h), with LLaMA-2-7B's shape and the CUDA
// backend's step memory as it reports it (backend/step_memory.h, fp16): every batch the
// scheduler could hold in the budget had its steps' memory kept free, and no more sequences
// than that were planned for.
#include <QtTest>

#include "kv/compression_presets.h"
#include "kv/kv_footprint.h"
#include "kv_budget.h"
#include "model/model_shapes.h"

using namespace pyramid;
using namespace pyramid::bench;

namespace {

constexpr size_t kGiB = size_t(1) << 30;

std::vector<CompressionConfig> all_policies()
{
    CompressionConfig local = compression_preset("reference-7b"), h2o = local;
    local.policy = CompressionPolicyKind::Local;
    h2o.policy = CompressionPolicyKind::H2O;
    return {CompressionConfig::full_cache(), compression_preset("reference-7b"), local, h2o};
}

} // namespace

class KvBudgetTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        config_ = find_model_shape("llama2-7b").config;
        entry_bytes_ = static_cast<size_t>(config_.kv_dim()) * 2 * layout_.element_bytes;
    }

    void every_batch_that_fits_was_planned_for_data()
    {
        QTest::addColumn<double>("free_gib");
        QTest::addColumn<int>("prompt");
        QTest::addColumn<int>("generated");
        QTest::addColumn<int>("most");
        QTest::newRow("6 GiB card, one chat") << 1.5 << 3840 << 256 << 1;
        QTest::newRow("80 GiB, the paper's 512+256, --max-batch") << 66.0 << 512 << 256 << 1024;
        QTest::newRow("80 GiB, batch 32") << 66.0 << 512 << 256 << 32;
        QTest::newRow("24 GiB, long prompts, --max-batch") << 10.0 << 2048 << 512 << 1024;
        QTest::newRow("6 GiB card, --max-batch") << 1.5 << 512 << 256 << 1024;
    }

    void every_batch_that_fits_was_planned_for()
    {
        QFETCH(double, free_gib);
        QFETCH(int, prompt);
        QFETCH(int, generated);
        QFETCH(int, most);
        const size_t free = static_cast<size_t>(free_gib * kGiB);
        Workload w;
        w.prompt_len = prompt;
        w.gen_len = generated;
        const std::vector<CompressionConfig> configs = all_policies();
        const KvBudget b = plan_kv_budget(free, step_memory_of(), entry_bytes_, config_.n_layers, configs, w, most);
        qInfo("%.1f GiB free, %d+%d, up to %d sequences: %.0f MiB kept for steps of %d rows and %d sequences",
              free_gib, prompt, generated, most, double(b.step_memory) / (1 << 20), b.extent.rows,
              b.extent.sequences);

        QCOMPARE(b.step_memory, step(b.extent));
        QCOMPARE(b.kv_bytes + b.step_memory, free);
        QCOMPARE(b.extent.sequence_length, prompt + generated);
        // The planned sequences' prompts admitted together, or one preempted sequence back as
        // one prompt.
        const auto extent_of = [&](int n) {
            const int rows = std::max(std::min(w.max_prompt_tokens, n * prompt), prompt + generated);
            return StepExtent{rows, n, prompt + generated};
        };
        const int n = b.extent.sequences;
        QCOMPARE(b.extent.rows, extent_of(n).rows);
        QVERIFY(b.extent.sequences >= 1 && b.extent.sequences <= most);
        // The most sequences the scheduler can hold at once: each holds at least its
        // footprint's least, under the most frugal policy.
        size_t least = SIZE_MAX;
        for (const CompressionConfig& c : configs)
            least = std::min(least, size_t(plan_kv_footprint(c, config_.n_layers, prompt, generated).least) * entry_bytes_);
        const auto holds = [&](size_t kv_bytes) { return static_cast<int>(kv_bytes / least); };
        QVERIFY2(b.extent.sequences == most || holds(b.kv_bytes) <= b.extent.sequences,
                 qPrintable(QString("%1 sequences fit, planned for %2").arg(holds(b.kv_bytes)).arg(b.extent.sequences)));
        // And no fewer would have been safe, with their own (no longer) prompt steps.
        if (n > 1)
            QVERIFY(holds(free - step(extent_of(n - 1))) > n - 1);
    }

    void prompt_rows_follow_admission()
    {
        const std::vector<CompressionConfig> configs{CompressionConfig::full_cache()};
        Workload w;  // 512 + 256, 8192 prompt tokens a step
        const auto rows = [&](int most) {
            return plan_kv_budget(40 * kGiB, step_memory_of(), entry_bytes_, config_.n_layers, configs, w, most)
                .extent.rows;
        };
        QCOMPARE(rows(32), 8192);  // 32 prompts of 512, admitted 8192 tokens at a time
        QCOMPARE(rows(4), 2048);
        QCOMPARE(rows(1), 768);  // preempted: prompt and generated tokens again
        w.max_prompt_tokens = 100;
        QCOMPARE(rows(8), 768);  // a step admits one prompt, however long
    }

    void nothing_left_for_the_cache()
    {
        Workload w;
        w.prompt_len = 4096 - 256;
        const KvBudget b = plan_kv_budget(size_t(100) << 20, step_memory_of(), entry_bytes_, config_.n_layers,
                                          all_policies(), w, 8);
        QVERIFY(b.step_memory > b.free);
        QCOMPARE(b.kv_bytes, size_t(0));
        QCOMPARE(b.extent.sequences, 1);
    }

private:
    size_t step(const StepExtent& e) const { return step_memory(config_, layout_, e, entry_bytes_).total(); }
    std::function<size_t(const StepExtent&)> step_memory_of() const
    {
        return [this](const StepExtent& e) { return step(e); };
    }

    ModelConfig config_;
    StepBufferLayout layout_;
    size_t entry_bytes_ = 0;
};

QTEST_APPLESS_MAIN(KvBudgetTest)
#include "test_kv_budget.moc"
