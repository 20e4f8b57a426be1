// BatchScheduler on stories260K: requests join and leave a running batch, each one generating
// what it would alone; the KV budget is never passed (sequences wait or are preempted and
// recomputed without losing a token); cancellation, end of sequence and refusals. Also the
// KV footprint plan against real caches.
#include <QtTest>

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <random>

#include "generate/batch_scheduler.h"
#include "generate/inference_session.h"
#include "kv/kv_footprint.h"
#include "model/model.h"
#include "shared_data.h"
#include "util/error.h"

using namespace pyramid;

namespace {

SamplingParams greedy()
{
    SamplingParams p;
    p.temperature = 0;
    return p;
}

CompressionConfig policy(int i)
{
    CompressionConfig c;
    c.policy = std::array{CompressionPolicyKind::Pyramid, CompressionPolicyKind::Full, CompressionPolicyKind::Local,
                          CompressionPolicyKind::H2O}[static_cast<size_t>(i % 4)];
    return c;
}

// Seeded sampling of three kinds: top-k and greedy (the scheduler fetches only the highest
// logits of a batch holding nothing else, as the first six requests do), and unlimited with
// a repetition penalty (whole rows for its batch), mixed in after them.
SamplingParams sampled(int i)
{
    SamplingParams p;
    p.seed = 100 + static_cast<uint64_t>(i);
    if (i < 6) {
        if (i % 2 == 1)
            p.temperature = 0;
    } else if (i % 3 == 1) {
        p.top_k = 0;
        p.repetition_penalty = 1.2f;
    } else if (i % 3 == 2) {
        p.temperature = 0;
    }
    return p;
}

// The request run alone, drawing every token from the whole row of logits.
std::vector<int32_t> alone(Backend& backend, const BatchRequest& r)
{
    InferenceSession s(backend, r.compression);
    Sampler sampler(r.sampling, backend.config().n_vocab);
    std::vector<int32_t> history = r.prompt;
    std::vector<float> logits = s.prefill(r.prompt);
    std::vector<int32_t> out;
    while (true) {
        out.push_back(sampler.sample(logits, history));
        history.push_back(out.back());
        if (static_cast<int>(out.size()) == r.max_new_tokens || (r.eos_token && out.back() == *r.eos_token))
            return out;
        logits = s.decode(out.back());
    }
}

struct Outcome {
    std::map<int, std::vector<int32_t>> tokens;
    std::map<int, BatchEvent> finish;
    int max_running = 0;
    size_t max_kv_bytes = 0;
};

// Steps until idle, checking that each step gives each running sequence exactly one event.
Outcome run(BatchScheduler& scheduler)
{
    Outcome o;
    while (!scheduler.idle()) {
        const std::vector<BatchEvent> events = scheduler.step();
        std::vector<int> ids;
        for (const BatchEvent& e : events) {
            ids.push_back(e.id);
            if (e.token)
                o.tokens[e.id].push_back(*e.token);
            if (e.finished)
                o.finish[e.id] = e;
        }
        std::sort(ids.begin(), ids.end());
        if (std::adjacent_find(ids.begin(), ids.end()) != ids.end())
            qFatal("a step reported one sequence twice");
        o.max_running = std::max(o.max_running, scheduler.running());
        o.max_kv_bytes = std::max(o.max_kv_bytes, scheduler.kv_bytes());
    }
    return o;
}

} // namespace

class BatchSchedulerTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
        model_ = Model::open(path, BackendPreference::Cpu);
    }

    void requests_generate_what_they_would_alone()
    {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        BatchScheduler scheduler(model_->backend(), {4, 0, 8192});
        std::map<int, BatchRequest> requests;
        for (int i = 0; i < 12; ++i) {
            BatchRequest r;
            std::uniform_int_distribution<int32_t> token(3, 511);
            r.prompt = {1};
            for (int n = std::uniform_int_distribution<int>(5, 150)(rng); n > 0; --n)
                r.prompt.push_back(token(rng));
            r.max_new_tokens = std::uniform_int_distribution<int>(1, 30)(rng);
            r.sampling = sampled(i);
            r.compression = policy(i);
            requests[scheduler.submit(r)] = r;
        }
        QCOMPARE(scheduler.waiting(), 12);
        const Outcome o = run(scheduler);
        QCOMPARE(o.max_running, 4);
        QCOMPARE(scheduler.preemptions(), 0);
        for (const auto& [id, r] : requests) {
            QCOMPARE(o.tokens.at(id), alone(model_->backend(), r));
            QVERIFY(o.finish.at(id).reason == FinishReason::MaxTokens);
        }
        QCOMPARE(scheduler.kv_bytes(), size_t(0));
    }

    void end_of_sequence_stops_early()
    {
        BatchRequest r;
        r.prompt = {1, 400, 300, 200};
        r.max_new_tokens = 20;
        r.sampling = greedy();
        const std::vector<int32_t> free_run = alone(model_->backend(), r);
        r.eos_token = free_run[5];
        const auto first = static_cast<size_t>(std::find(free_run.begin(), free_run.end(), *r.eos_token) - free_run.begin());
        BatchScheduler scheduler(model_->backend(), {});
        const int id = scheduler.submit(r);
        const Outcome o = run(scheduler);
        QCOMPARE(o.tokens.at(id), std::vector<int32_t>(free_run.begin(), free_run.begin() + first + 1));
        QVERIFY(o.finish.at(id).reason == FinishReason::EndOfSequence);
    }

    // A budget for about two full-cache sequences: eight requests never pass it, some wait or
    // are preempted, and every one still generates exactly its own tokens.
    void kv_budget_is_kept_by_waiting_and_preemption()
    {
        const ModelConfig& c = model_->config();
        const size_t entry = 2 * static_cast<size_t>(c.kv_dim()) * sizeof(float);
        const size_t limit = 2 * 90 * static_cast<size_t>(c.n_layers) * entry;
        BatchScheduler scheduler(model_->backend(), {8, limit, 8192});
        std::map<int, BatchRequest> requests;
        for (int i = 0; i < 8; ++i) {
            BatchRequest r;
            r.prompt = {1};
            for (int t = 0; t < 30 + 5 * i; ++t)
                r.prompt.push_back(static_cast<int32_t>(3 + (i * 37 + t * 11) % 500));
            r.max_new_tokens = 40;
            r.sampling = greedy();
            r.compression = CompressionConfig::full_cache();
            requests[scheduler.submit(r)] = r;
        }
        const Outcome o = run(scheduler);
        QVERIFY(o.max_kv_bytes <= limit);
        QVERIFY(o.max_running < 8);
        qInfo("at most %d running, %d preemptions, peak %zu of %zu KV bytes", o.max_running, scheduler.preemptions(),
              o.max_kv_bytes, limit);
        QVERIFY(scheduler.preemptions() > 0);
        for (const auto& [id, r] : requests) {
            QCOMPARE(o.tokens.at(id), alone(model_->backend(), r));
            QVERIFY(o.finish.at(id).reason == FinishReason::MaxTokens);
        }
    }

    void a_request_larger_than_the_budget_fails_alone()
    {
        BatchScheduler scheduler(model_->backend(), {4, 1024, 8192});
        BatchRequest big;
        big.prompt.assign(100, 5);
        big.max_new_tokens = 3;
        const int big_id = scheduler.submit(big);
        const Outcome o = run(scheduler);
        QVERIFY(o.finish.at(big_id).reason == FinishReason::Error);
        QVERIFY2(o.finish.at(big_id).error.find("out of KV-cache memory") != std::string::npos,
                 o.finish.at(big_id).error.c_str());
        QVERIFY(o.tokens.count(big_id) == 0);
    }

    void cancel_ends_running_and_waiting_requests()
    {
        BatchScheduler scheduler(model_->backend(), {1, 0, 8192});
        BatchRequest r;
        r.prompt = {1, 300, 301};
        r.max_new_tokens = 50;
        const int a = scheduler.submit(r), b = scheduler.submit(r);
        scheduler.step();
        scheduler.step();
        QCOMPARE(scheduler.generated(a).size(), size_t(2));
        scheduler.cancel(a);
        scheduler.cancel(b);
        const Outcome o = run(scheduler);
        QVERIFY(o.finish.at(a).reason == FinishReason::Cancelled);
        QVERIFY(o.finish.at(b).reason == FinishReason::Cancelled);
        QVERIFY(o.tokens.count(b) == 0);
        QVERIFY(scheduler.idle());

        // A request waiting behind a full batch, not at the head of the queue, ends at the
        // next step too.
        const int running = scheduler.submit(r), head = scheduler.submit(r), behind = scheduler.submit(r);
        scheduler.step();
        scheduler.cancel(behind);
        const std::vector<BatchEvent> events = scheduler.step();
        const auto ended = std::find_if(events.begin(), events.end(), [&](const BatchEvent& e) { return e.id == behind; });
        QVERIFY(ended != events.end() && ended->finished && ended->reason == FinishReason::Cancelled);
        QCOMPARE(scheduler.waiting(), 1);
        scheduler.cancel(running);
        scheduler.cancel(head);
        run(scheduler);
    }

    // What full caches would hold for the running sequences: the real bytes under the full
    // policy, more than PyramidInfer's compressed caches hold, nothing once they finished.
    void full_kv_bytes_counts_what_full_caches_would_hold()
    {
        for (const CompressionPolicyKind kind : {CompressionPolicyKind::Full, CompressionPolicyKind::Pyramid}) {
            BatchScheduler scheduler(model_->backend(), {2, 0, 8192});
            BatchRequest r;
            r.prompt = {1};
            for (int t = 0; t < 200; ++t)
                r.prompt.push_back(static_cast<int32_t>(3 + (t * 31) % 500));
            r.max_new_tokens = 5;
            r.sampling = greedy();
            r.compression.policy = kind;
            scheduler.submit(r);
            scheduler.submit(r);
            scheduler.step();
            // Two sequences, each at its prompt and one decoded token, in every layer.
            const size_t full = 2 * (r.prompt.size() + 1) * static_cast<size_t>(model_->config().n_layers) *
                                model_->backend().kv_entry_bytes();
            QCOMPARE(scheduler.full_kv_bytes(), full);
            if (kind == CompressionPolicyKind::Full)
                QCOMPARE(scheduler.kv_bytes(), full);
            else
                QVERIFY2(scheduler.kv_bytes() < full, qPrintable(QString::number(scheduler.kv_bytes())));
            run(scheduler);
            QCOMPARE(scheduler.full_kv_bytes(), size_t(0));
        }
    }

    void refuses_requests_that_cannot_run()
    {
        BatchScheduler scheduler(model_->backend(), {});
        BatchRequest r;
        QVERIFY_THROWS_EXCEPTION(Error, scheduler.submit(r));  // empty prompt
        r.prompt.assign(static_cast<size_t>(model_->config().context_length) - 10, 5);
        r.max_new_tokens = 11;
        QVERIFY_THROWS_EXCEPTION(Error, scheduler.submit(r));  // prompt + tokens past the context
        r.prompt = {1, model_->config().n_vocab, 5};
        r.max_new_tokens = 1;
        QVERIFY_THROWS_EXCEPTION(Error, scheduler.submit(r));  // an id outside the vocabulary
        r.prompt = {1, -1};
        QVERIFY_THROWS_EXCEPTION(Error, scheduler.submit(r));
        QVERIFY_THROWS_EXCEPTION(Error, BatchScheduler(model_->backend(), {0, 0, 8192}));
    }

    // The planned footprint equals the cache's real lengths after the prefill and bounds the
    // real total at every step from above (peak) and below (least), for every policy.
    void footprint_matches_the_cache()
    {
        const int n_layers = model_->config().n_layers;
        for (int i = 0; i < 4; ++i) {
            const CompressionConfig config = policy(i);
            std::vector<int32_t> prompt{1};
            for (int t = 0; t < 200; ++t)
                prompt.push_back(static_cast<int32_t>(3 + (t * 29) % 500));
            constexpr int kSteps = 60;
            const KvFootprint plan = plan_kv_footprint(config, n_layers, static_cast<int>(prompt.size()), kSteps);
            InferenceSession s(model_->backend(), config);
            std::vector<float> logits = s.prefill(prompt);
            QCOMPARE(s.cache().lengths(), plan.after_prefill);
            const int kept = std::accumulate(plan.after_prefill.begin(), plan.after_prefill.end(), 0);
            int real_peak = 0, real_least = kept;
            for (int step = 0; step < kSteps; ++step) {
                logits = s.decode(Sampler::argmax(logits));
                const auto lengths = s.cache().lengths();
                const int total = std::accumulate(lengths.begin(), lengths.end(), 0);
                real_peak = std::max(real_peak, total);
                real_least = std::min(real_least, total);
            }
            QVERIFY2(real_peak <= plan.peak, qPrintable(QString("policy %1: %2 > %3").arg(i).arg(real_peak).arg(plan.peak)));
            QVERIFY2(plan.least <= real_least,
                     qPrintable(QString("policy %1: %2 > %3").arg(i).arg(plan.least).arg(real_least)));
            QVERIFY(plan.least > 0);
            // PyramidInfer's layers keep every row that reaches them: no transient above that.
            if (config.policy == CompressionPolicyKind::Pyramid)
                QCOMPARE(plan.prefill_peak, kept);
            else
                QVERIFY(plan.prefill_peak >= kept);
            if (config.policy == CompressionPolicyKind::Full)
                QCOMPARE(plan.peak, n_layers * (static_cast<int>(prompt.size()) + kSteps));
        }
    }

private:
    std::shared_ptr<Model> model_;
};

QTEST_APPLESS_MAIN(BatchSchedulerTest)
#include "test_batch_scheduler.moc"
