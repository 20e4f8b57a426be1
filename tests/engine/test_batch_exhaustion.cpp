// One sequence's cache that cannot grow never ends the batch (issue 34). On the CPU backend
// with a KV capacity counted in blocks (backend/kv_block_allocator.h): caches hold whole blocks
// and compaction gives emptied ones back; when the memory runs out before a step, the newest
// sequence is preempted and every other one generates exactly what it would alone; a request
// that can never fit, or one that outgrows the whole capacity, ends alone with the reason.
#include <QtTest>

#include <map>

#include "backend/cpu_backend.h"
#include "generate/batch_scheduler.h"
#include "generate/inference_session.h"
#include "model/model.h"
#include "shared_data.h"

using namespace pyramid;

namespace {

constexpr int kBlock = 16;

BatchRequest request(int prompt_length, int new_tokens, int salt, CompressionPolicyKind policy)
{
    BatchRequest r;
    r.prompt = {1};
    for (int i = 1; i < prompt_length; ++i)
        r.prompt.push_back(3 + (i * 37 + salt * 101) % 500);
    r.max_new_tokens = new_tokens;
    r.sampling.temperature = 0;
    r.compression.policy = policy;
    return r;
}

// The request alone in a batch of its own on a backend without a capacity.
std::vector<int32_t> alone(Backend& backend, const BatchRequest& r)
{
    BatchScheduler scheduler(backend, {});
    const int id = scheduler.submit(r);
    std::vector<int32_t> out;
    while (!scheduler.idle())
        for (const BatchEvent& e : scheduler.step())
            if (e.id == id && e.token)
                out.push_back(*e.token);
    return out;
}

struct Outcome {
    std::map<int, std::vector<int32_t>> tokens;
    std::map<int, BatchEvent> finish;
    size_t most_blocks = 0;
};

Outcome run(BatchScheduler& scheduler, const CpuBackend& backend)
{
    Outcome o;
    while (!scheduler.idle()) {
        for (const BatchEvent& e : scheduler.step()) {
            if (e.token)
                o.tokens[e.id].push_back(*e.token);
            if (e.finished)
                o.finish[e.id] = e;
        }
        o.most_blocks = std::max(o.most_blocks, backend.kv_blocks().in_use);
    }
    return o;
}

} // namespace

class BatchExhaustionTest : public QObject {
    Q_OBJECT

    std::shared_ptr<Model> model_;
    size_t entry_bytes_ = 0;

    // A CPU backend whose caches may hold `blocks` blocks of 16 entries of one layer.
    std::unique_ptr<CpuBackend> limited(size_t blocks) const
    {
        return std::make_unique<CpuBackend>(model_->files().weights, KvPrecision::F32, cpu::best_kernel_config(),
                                            CpuBackend::kSliceRows,
                                            CpuKvMemory{kBlock, blocks * kBlock * entry_bytes_});
    }
    int layers() const { return model_->config().n_layers; }

private slots:
    void initTestCase()
    {
        PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
        model_ = Model::open(path, BackendPreference::Cpu);
        entry_bytes_ = model_->backend().kv_entry_bytes();
    }

    void cachesHoldWholeBlocksAndGiveEmptiedOnesBack()
    {
        const auto backend = limited(1000);
        {
            InferenceSession full(*backend, {CompressionPolicyKind::Full});
            full.prefill(request(20, 1, 0, CompressionPolicyKind::Full).prompt);
            QCOMPARE(backend->kv_blocks().in_use, size_t(2 * layers()));  // 20 entries: 2 blocks a layer
            for (int i = 0; i < 13; ++i)
                full.decode(5);
            QCOMPARE(backend->kv_blocks().in_use, size_t(3 * layers()));  // 33 entries
            full.reset();
            QCOMPARE(backend->kv_blocks().in_use, size_t(0));

            // PyramidInfer's shrinking layers hold only the blocks their entries fill, and a
            // prompt's reservation is exactly what its layers come to hold: the rows that enter
            // each (nothing taken during the step, nothing given back after it).
            InferenceSession pyramid(*backend, {CompressionPolicyKind::Pyramid});
            pyramid.state().reserve_prompt(300);
            const size_t reserved = backend->kv_blocks().in_use;
            pyramid.extend(request(300, 1, 1, CompressionPolicyKind::Pyramid).prompt);
            QCOMPARE(backend->kv_blocks().in_use, reserved);
            size_t expected = 0;
            for (int length : pyramid.cache().lengths())
                expected += static_cast<size_t>((length + kBlock - 1) / kBlock);
            QVERIFY(pyramid.cache().lengths().back() < 300);
            QCOMPARE(backend->kv_blocks().in_use, expected);

            // Generating, its layers compact: the entries dropped are counted, and the blocks
            // given back at once hold them but for less than a block a layer (a layer's last
            // block, partly filled before and after, keeps what it does not give back).
            const KvBlockUse before = backend->kv_blocks();
            for (int i = 0; i < 120; ++i)
                pyramid.decode(5 + i % 7);
            const KvBlockUse after = backend->kv_blocks();
            const size_t dropped = after.compaction_entries_dropped - before.compaction_entries_dropped;
            const size_t freed = after.compaction_blocks_freed - before.compaction_blocks_freed;
            const QByteArray blocks_text = QString("%1 blocks for %2 entries").arg(freed).arg(dropped).toUtf8();
            QVERIFY(dropped > 0);
            QVERIFY2(freed * kBlock + size_t(kBlock * layers()) > dropped, blocks_text.constData());
            QVERIFY2(freed * kBlock < dropped + size_t(kBlock * layers()), blocks_text.constData());
            expected = 0;
            for (int length : pyramid.cache().lengths())
                expected += static_cast<size_t>((length + kBlock - 1) / kBlock);
            QCOMPARE(after.in_use, expected);
        }
        QCOMPARE(backend->kv_blocks().in_use, size_t(0));  // the sessions are gone
        QVERIFY_THROWS_EXCEPTION(Error, CpuBackend(model_->files().weights, KvPrecision::F32,
                                                   cpu::best_kernel_config(), CpuBackend::kSliceRows,
                                                   CpuKvMemory{kBlock, kBlock * entry_bytes_ - 1}));
    }

    // Four requests that end at 60 entries (4 blocks a layer) in room for about two and a half:
    // the newest are preempted as memory runs out, and everyone's tokens are their own.
    void runningOutPreemptsTheNewestAndTheOthersGoOn()
    {
        const size_t per_sequence = static_cast<size_t>(4 * layers());
        const auto backend = limited(per_sequence * 5 / 2);
        BatchScheduler scheduler(*backend, {8, 0, 8192});
        std::map<int, BatchRequest> requests;
        for (int i = 0; i < 4; ++i) {
            const BatchRequest r = request(20, 40, i, CompressionPolicyKind::Full);
            requests[scheduler.submit(r)] = r;
        }
        const Outcome o = run(scheduler, *backend);
        QVERIFY(scheduler.preemptions() > 0);
        QVERIFY(o.most_blocks <= backend->kv_blocks().capacity_blocks);
        for (const auto& [id, r] : requests) {
            QVERIFY2(o.finish.at(id).reason == FinishReason::MaxTokens, o.finish.at(id).error.c_str());
            QCOMPARE(o.tokens.at(id), alone(model_->backend(), r));
        }
        QCOMPARE(backend->kv_blocks().in_use, size_t(0));
    }

    // A prompt larger than the whole capacity ends at once; a sequence that outgrows it ends
    // when it is the last one left; the others' tokens are those of a run without them.
    void oneThatCanNeverFitEndsAlone()
    {
        const size_t capacity = static_cast<size_t>(6 * layers());  // 96 entries a layer
        const auto backend = limited(capacity);
        BatchScheduler scheduler(*backend, {8, 0, 8192});
        const BatchRequest grows = request(20, 150, 7, CompressionPolicyKind::Full);  // to 170 entries
        const BatchRequest huge = request(120, 4, 8, CompressionPolicyKind::Full);   // 8 blocks a layer
        const BatchRequest small = request(12, 10, 9, CompressionPolicyKind::Full);
        const BatchRequest pyramid = request(40, 12, 10, CompressionPolicyKind::Pyramid);
        const int grows_id = scheduler.submit(grows);
        const int huge_id = scheduler.submit(huge);
        const int small_id = scheduler.submit(small);
        const int pyramid_id = scheduler.submit(pyramid);
        const Outcome o = run(scheduler, *backend);

        QVERIFY(o.finish.at(huge_id).reason == FinishReason::Error);
        QVERIFY(o.finish.at(huge_id).error.find("out of KV-cache memory") != std::string::npos);
        QVERIFY(!o.tokens.count(huge_id));
        QVERIFY(o.finish.at(grows_id).reason == FinishReason::Error);
        QVERIFY(o.finish.at(grows_id).error.find("out of KV-cache memory") != std::string::npos);
        // It generated up to the capacity, each token its own.
        const std::vector<int32_t>& partial = o.tokens.at(grows_id);
        QVERIFY(partial.size() >= 70 && partial.size() < 150);
        const std::vector<int32_t> whole = alone(model_->backend(), grows);
        QCOMPARE(partial, std::vector<int32_t>(whole.begin(), whole.begin() + static_cast<ptrdiff_t>(partial.size())));
        for (const auto& [id, r] : {std::pair{small_id, small}, std::pair{pyramid_id, pyramid}}) {
            QVERIFY2(o.finish.at(id).reason == FinishReason::MaxTokens, o.finish.at(id).error.c_str());
            QCOMPARE(o.tokens.at(id), alone(model_->backend(), r));
        }
        QCOMPARE(backend->kv_blocks().in_use, size_t(0));
    }
};

QTEST_GUILESS_MAIN(BatchExhaustionTest)
#include "test_batch_exhaustion.moc"
