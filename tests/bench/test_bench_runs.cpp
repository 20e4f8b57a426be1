// pyramid-bench's measurements on generated `tiny` weights (CPU): what a run reports about
// memory is what the caches held and its own peak, the largest batch found is the largest that
// fits, variants compared take turns, and failures are reported in the result, not thrown.
#include <QtTest>

#include <fstream>
#include <numeric>

#include "bench_report.h"
#include "bench_run.h"
#include "util/error.h"

using namespace pyramid;
using namespace pyramid::bench;

namespace {

CompressionConfig aggressive_pyramid()
{
    CompressionConfig c;
    c.pyramid.prefill_decay_ratio = 0.3;
    c.pyramid.min_context_length = 8;
    return c;
}

} // namespace

class BenchRunsTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        ModelSource source;
        source.shape = "tiny";
        model_ = std::make_unique<BenchModel>(source, BackendPreference::Cpu);
        QCOMPARE(model_->source(), std::string("shape"));
        QCOMPARE(model_->weight_type(), std::string("f16"));
        // Every matrix but the embedding table, in F16, plus float32 norms.
        const ModelConfig& c = model_->config();
        const size_t per_layer = 2 * (4 * size_t(c.dim) * c.dim + 3 * size_t(c.dim) * c.ffn_dim) + 2 * 4 * size_t(c.dim);
        QCOMPARE(model_->weight_bytes(), c.n_layers * per_layer + 2 * size_t(c.n_vocab) * c.dim + 4 * size_t(c.dim));
    }

    // A full cache ends holding prompt + gen - 1 entries per layer and sequence at its peak
    // (the last token is drawn, never fed); the run reports exactly that.
    void full_cache_memory_is_exact()
    {
        const Workload w{48, 6, 3, 7, 0, 8192};
        const RunResult r = run_workload(*model_, CompressionConfig::full_cache(), "full", w);
        QVERIFY2(r.ok, r.error.c_str());
        const ModelConfig& c = model_->config();
        const size_t entry = 2 * size_t(c.kv_dim()) * sizeof(float);
        QCOMPARE(r.kv_bytes_peak, size_t(w.batch) * c.n_layers * (w.prompt_len + w.gen_len - 1) * entry);
        QCOMPARE(r.kv_bytes_full, size_t(w.batch) * c.n_layers * (w.prompt_len + w.gen_len) * entry);
        QCOMPARE(r.layer_lengths, std::vector<double>(size_t(c.n_layers), w.prompt_len + w.gen_len - 1));
        QCOMPARE(r.max_running, w.batch);
        QCOMPARE(r.preemptions, 0);
        QVERIFY(r.prefill_s > 0 && r.decode_s > 0 && r.total_s >= r.prefill_s + r.decode_s);
        QVERIFY(std::abs(r.throughput_tokens_per_s - w.batch * w.gen_len / r.total_s) < 1e-9 * r.throughput_tokens_per_s);
        QVERIFY(r.decode_bandwidth_gbs > 0);
        // Queueing a CPU step's layers is computing them: some time, within the decode time.
        QVERIFY(r.queue_ms_per_step > 0 && r.queue_ms_per_step < 1e3 * r.decode_s);
        // The host's work after the probe scores is the rest of a step: some time too, and both
        // parts of a mean step fit in the whole decode time.
        QVERIFY(r.selection_ms_per_step > 0 && r.queue_ms_per_step + r.selection_ms_per_step < 1e3 * r.decode_s);
        QVERIFY(r.kv_bytes_mean > 0 && r.kv_bytes_mean < r.kv_bytes_peak);
    }

    void pyramid_holds_less_and_fits_more()
    {
        Workload w{120, 8, 2, 3, 0, 8192};
        const RunResult full = run_workload(*model_, CompressionConfig::full_cache(), "full", w);
        const RunResult pyramid = run_workload(*model_, aggressive_pyramid(), "pyramid", w);
        QVERIFY(full.ok && pyramid.ok);
        QVERIFY2(pyramid.kv_bytes_peak < full.kv_bytes_peak * 9 / 10,
                 qPrintable(QString("%1 vs %2").arg(pyramid.kv_bytes_peak).arg(full.kv_bytes_peak)));
        QVERIFY(pyramid.layer_lengths.back() < pyramid.layer_lengths.front());

        // A budget of exactly five full sequences at their peak: full fits five, pyramid more.
        const size_t per_sequence = full.kv_bytes_peak / size_t(w.batch) +
                                    size_t(model_->config().n_layers) * 2 * model_->config().kv_dim() * sizeof(float);
        w.kv_byte_limit = 5 * per_sequence;
        const RunResult full_max = find_max_batch(*model_, CompressionConfig::full_cache(), "full", w, 64);
        const RunResult pyramid_max = find_max_batch(*model_, aggressive_pyramid(), "pyramid", w, 64);
        QCOMPARE(full_max.batch, 5);
        QVERIFY(fits(full_max, Workload{w.prompt_len, w.gen_len, 5, w.seed, w.kv_byte_limit, w.max_prompt_tokens}));
        QVERIFY2(pyramid_max.batch > 5, qPrintable(QString::number(pyramid_max.batch)));
        QVERIFY(pyramid_max.kv_bytes_peak <= w.kv_byte_limit);
        // One more sequence than found does not fit.
        w.batch = full_max.batch + 1;
        QVERIFY(!fits(run_workload(*model_, CompressionConfig::full_cache(), "full", w), w));
    }

    void failures_are_reported_not_thrown()
    {
        const Workload too_long{2000, 8, 1, 1, 0, 8192};  // past the context of 1024
        const RunResult r = run_workload(*model_, CompressionConfig::full_cache(), "full", too_long);
        QVERIFY(!r.ok);
        QVERIFY2(r.error.find("context") != std::string::npos, r.error.c_str());
        QCOMPARE(r.throughput_tokens_per_s, 0.0);

        const Workload no_budget{16, 2, 1, 1, 0, 8192};
        QVERIFY_THROWS_EXCEPTION(Error, find_max_batch(*model_, CompressionConfig::full_cache(), "full", no_budget, 8));
    }

    void variants_take_turns()
    {
        QCOMPARE(interleaved_order(3, 3), (std::vector<int>{0, 1, 2, 2, 1, 0, 0, 1, 2}));
        QCOMPARE(interleaved_order(2, 1), (std::vector<int>{0, 1}));
        QVERIFY(interleaved_order(4, 0).empty());

        const Workload one{24, 4, 1, 1, 0, 8192};
        Workload two = one;
        two.batch = 2;
        const std::vector<Variant> variants{{CompressionConfig::full_cache(), "full", one},
                                            {aggressive_pyramid(), "pyramid", two}};
        const std::vector<RunResult> runs = measure_side_by_side(*model_, variants, 1, 3);
        QCOMPARE(runs.size(), size_t(2));
        QCOMPARE(runs[0].label, std::string("full"));
        QCOMPARE(runs[0].batch, 1);
        QCOMPARE(runs[1].label, std::string("pyramid"));
        QCOMPARE(runs[1].policy, std::string("pyramid"));
        QCOMPARE(runs[1].batch, 2);
        QVERIFY(runs[0].ok && runs[1].ok);
    }

    // A run's peak memory is its own: a small run after a large one does not report the large
    // one's peak (on the CPU, the resident set's peak is reset at the start of each run).
    void peak_memory_is_each_runs_own()
    {
        if (!std::ofstream("/proc/self/clear_refs"))
            QSKIP("this system does not let a process reset its resident-set peak");
        const RunResult large = run_workload(*model_, CompressionConfig::full_cache(), "full", {500, 4, 16, 1, 0, 8192});
        const RunResult small = run_workload(*model_, CompressionConfig::full_cache(), "full", {32, 4, 1, 1, 0, 8192});
        QVERIFY(large.ok && small.ok);
        QVERIFY2(small.peak_device_memory + large.kv_bytes_peak / 2 < large.peak_device_memory,
                 qPrintable(QString("small run %1 bytes, large run %2 bytes with %3 of KV")
                                .arg(small.peak_device_memory)
                                .arg(large.peak_device_memory)
                                .arg(large.kv_bytes_peak)));
    }

    // Auto makes generated weights where CUDA starts, else on the host for the CPU, and says why.
    void shapes_run_where_the_device_allows()
    {
        ModelSource source;
        source.shape = "tiny";
        BenchModel automatic(source, BackendPreference::Auto);
        const std::string backend = automatic.backend().info().name;
        if (backend == "cpu")
            QVERIFY2(automatic.backend_note().starts_with("running on the CPU: "), automatic.backend_note().c_str());
        else
            QCOMPARE(backend, std::string("cuda"));
        QVERIFY(automatic.weight_bytes() > 0);
        source.shape = "llama2-70b";
        QVERIFY_THROWS_EXCEPTION(Error, BenchModel(source, BackendPreference::Cpu));
    }

private:
    std::unique_ptr<BenchModel> model_;
};

QTEST_APPLESS_MAIN(BenchRunsTest)
#include "test_bench_runs.moc"
