// Continuous batching through InferenceSession::extend_batch / decode_batch on stories260K:
// sequences of different lengths and policies, joining and leaving between steps, must give
// exactly what running each of them alone gives: tokens, per-layer lengths, kept positions and
// logits bit for bit (the CPU kernels sum each row in the same order whatever shares its
// batch). Also on a Q4_K_M file, whose products take the int8 kernels.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <random>

#include "backend/forwarding_backend.h"
#include "generate/inference_session.h"
#include "generate/sampler.h"
#include "model/model.h"
#include "shared_data.h"
#include "util/error.h"

using namespace pyramid;

namespace {

struct Trace {
    std::vector<int32_t> tokens;
    std::vector<std::vector<int>> lengths;  // after the prompt and after every step
    std::vector<std::vector<int32_t>> final_positions;  // per layer, at the end
    std::vector<std::vector<float>> logits;  // after the prompt and after every step
};

struct Request {
    std::vector<int32_t> prompt;
    CompressionConfig config;
    int steps = 0;      // tokens to decode
    int join_step = 0;  // batch step at which it joins
};

std::vector<int32_t> random_prompt(std::mt19937& rng, int length, int n_vocab)
{
    std::uniform_int_distribution<int32_t> token(3, n_vocab - 1);
    std::vector<int32_t> prompt{1};  // BOS
    while (static_cast<int>(prompt.size()) < length)
        prompt.push_back(token(rng));
    return prompt;
}

CompressionConfig config_for(int i)
{
    switch (i % 4) {
    case 0: return CompressionConfig{};  // PyramidInfer, reference defaults
    case 1: return CompressionConfig::full_cache();
    case 2: {
        CompressionConfig c;
        c.policy = CompressionPolicyKind::H2O;
        return c;
    }
    default: {
        CompressionConfig c;
        c.pyramid.prefill_decay_ratio = 0.6;  // aggressive: rows dropped at every layer
        c.pyramid.min_context_length = 16;
        return c;
    }
    }
}

void record(Trace& t, const InferenceSession& s, std::vector<float> logits)
{
    t.lengths.push_back(s.cache().lengths());
    t.tokens.push_back(Sampler::argmax(logits));
    t.logits.push_back(std::move(logits));
}

void finish(Trace& t, const InferenceSession& s)
{
    for (int l = 0; l < s.cache().n_layers(); ++l) {
        const auto p = s.cache().positions(l);
        t.final_positions.emplace_back(p.begin(), p.end());
    }
}

Trace run_alone(Backend& backend, const Request& r)
{
    InferenceSession s(backend, r.config);
    Trace t;
    record(t, s, s.prefill(r.prompt));
    for (int i = 0; i < r.steps; ++i)
        record(t, s, s.decode(t.tokens.back()));
    finish(t, s);
    return t;
}

// Runs the requests as a continuously batched workload: at each step, the requests whose
// join_step has come run their prompts together, then every running sequence decodes one
// token together; a sequence leaves once it has decoded its steps.
std::vector<Trace> run_batched(Backend& backend, const std::vector<Request>& requests)
{
    std::vector<std::unique_ptr<InferenceSession>> sessions;
    for (const Request& r : requests)
        sessions.push_back(std::make_unique<InferenceSession>(backend, r.config));
    std::vector<Trace> traces(requests.size());
    std::vector<int> decoded(requests.size(), 0);
    for (int step = 0;; ++step) {
        std::vector<InferenceSession*> joining, running;
        std::vector<std::span<const int32_t>> prompts;
        std::vector<int32_t> tokens;
        std::vector<size_t> joining_index, running_index;
        bool pending = false;
        for (size_t i = 0; i < requests.size(); ++i) {
            if (requests[i].join_step == step) {
                joining.push_back(sessions[i].get());
                prompts.emplace_back(requests[i].prompt);
                joining_index.push_back(i);
            } else if (requests[i].join_step < step && decoded[i] < requests[i].steps) {
                running.push_back(sessions[i].get());
                tokens.push_back(traces[i].tokens.back());
                running_index.push_back(i);
            }
            pending = pending || requests[i].join_step > step;
        }
        if (joining.empty() && running.empty() && !pending)
            break;
        if (!joining.empty()) {
            auto logits = InferenceSession::extend_batch(joining, prompts);
            for (size_t k = 0; k < joining.size(); ++k)
                record(traces[joining_index[k]], *joining[k], std::move(logits[k]));
        }
        if (!running.empty()) {
            auto logits = InferenceSession::decode_batch(running, tokens);
            for (size_t k = 0; k < running.size(); ++k) {
                const size_t i = running_index[k];
                record(traces[i], *running[k], std::move(logits[k]));
                if (++decoded[i] == requests[i].steps)
                    finish(traces[i], *running[k]);
            }
        }
    }
    for (size_t i = 0; i < requests.size(); ++i)
        if (requests[i].steps == 0)
            finish(traces[i], *sessions[i]);
    return traces;
}

// A backend whose probe scores arrive late, as a GPU backend's do: until wait_for_probes(l)
// for their layer or a later one, the engine's probe_out vectors hold the negated scores, which
// would select other entries.
class DeferringBackend final : public ForwardingBackend {
public:
    using ForwardingBackend::ForwardingBackend;

    int waits = 0;
    int deferred = 0;  // probe results held back in all

    std::unique_ptr<HiddenStates> embed(std::span<const int32_t> tokens) override
    {
        pending_.clear();  // a failed step's scores are never delivered
        return inner_.embed(tokens);
    }
    void run_layer_batch(int layer, HiddenStates& hidden, std::span<const SequenceRows> sequences) override
    {
        std::vector<SequenceRows> redirected(sequences.begin(), sequences.end());
        const size_t first_new = pending_.size();
        for (SequenceRows& seq : redirected)
            if (seq.probe_out) {
                pending_.push_back({layer, seq.probe_out, {}});
                seq.probe_out = &pending_.back().scores;
            }
        inner_.run_layer_batch(layer, hidden, redirected);
        for (size_t i = first_new; i < pending_.size(); ++i) {
            std::vector<float>& poisoned = *pending_[i].destination;
            poisoned = pending_[i].scores;
            for (float& v : poisoned)
                v = -v;
            ++deferred;
        }
    }
    void wait_for_probes(int layer) override
    {
        ++waits;
        // Up to the last scores of `layer`, as queued; later layers' stay poisoned.
        const auto last = std::find_if(pending_.rbegin(), pending_.rend(), [&](const Pending& p) {
            return p.layer == layer;
        });
        const auto end = last.base();
        for (auto p = pending_.begin(); p != end; ++p)
            *p->destination = std::move(p->scores);
        pending_.erase(pending_.begin(), end);
    }

private:
    struct Pending {
        int layer;
        std::vector<float>* destination;
        std::vector<float> scores;
    };
    std::deque<Pending> pending_;  // stable addresses: the inner backend writes into them
};

double relative_error(const std::vector<float>& a, const std::vector<float>& b)
{
    double diff = 0, norm = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        diff = std::max(diff, std::abs(double(a[i]) - b[i]));
        norm = std::max(norm, std::abs(double(b[i])));
    }
    return diff / std::max(norm, 1e-30);
}

} // namespace

class BatchedDecodingTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
        model_ = Model::open(path, BackendPreference::Cpu);
    }

    void batch_equals_one_by_one_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("sequences");
        QTest::addColumn<int>("max_steps");
        QTest::newRow("stories260K") << "models/stories260K.gguf" << 16 << 40;
        QTest::newRow("q4_k_m") << "models/kquants/synthetic-llama-q4_k_m.gguf" << 6 << 12;
    }

    // Different prompts (lengths 9 to 180, four policies), joining at different steps and
    // leaving after different numbers of tokens, equal the same prompts run one by one.
    void batch_equals_one_by_one()
    {
        QFETCH(QString, file);
        QFETCH(int, sequences);
        QFETCH(int, max_steps);
        PYRAMID_REQUIRE_SHARED(path, file.toStdString());
        // Bit-equal results need kernels whose sums for one token do not depend on how many
        // tokens share a product: the exact path's and the AVX2 int8 kernels' do. The
        // AVX512-VNNI kernels take a prompt's tokens in vector lanes and sum in another order
        // than one token alone (within 2e-6 of the sum of |terms|: quant_kernels_test).
        BackendOptions options(BackendPreference::Cpu);
        if (options.cpu_kernels.isa == cpu::KernelIsa::Avx512Vnni)
            options.cpu_kernels.isa = cpu::KernelIsa::Avx2;
        auto model = Model::open(path, options);
        std::mt19937 rng(QRandomGenerator::global()->generate());
        const int n_vocab = model->config().n_vocab;
        std::vector<Request> requests;
        for (int i = 0; i < sequences; ++i) {
            // The aggressive PyramidInfer settings (config_for) get a prompt long enough to be
            // pruned, so the batch always holds a pruned sequence.
            std::uniform_int_distribution<int> length(i % 4 == 3 ? 64 : 9, 180), steps(0, max_steps),
                join(0, max_steps / 3);
            requests.push_back({random_prompt(rng, length(rng), n_vocab), config_for(i), steps(rng),
                                i < sequences / 3 ? 0 : join(rng)});
        }
        const std::vector<Trace> batched = run_batched(model->backend(), requests);
        for (size_t i = 0; i < requests.size(); ++i) {
            const Trace alone = run_alone(model->backend(), requests[i]);
            QCOMPARE(batched[i].tokens, alone.tokens);
            QCOMPARE(batched[i].lengths, alone.lengths);
            QCOMPARE(batched[i].final_positions, alone.final_positions);
            QCOMPARE(batched[i].logits.size(), alone.logits.size());
            for (size_t k = 0; k < alone.logits.size(); ++k)
                QVERIFY2(relative_error(batched[i].logits[k], alone.logits[k]) == 0.0,
                         qPrintable(QString("sequence %1, step %2: %3")
                                        .arg(i)
                                        .arg(k)
                                        .arg(relative_error(batched[i].logits[k], alone.logits[k]))));
        }
        // The comparison means something only if compression really pruned in the batch.
        bool pruned = false;
        for (size_t i = 0; i < requests.size(); ++i)
            pruned = pruned || batched[i].lengths.front().back() < static_cast<int>(requests[i].prompt.size());
        QVERIFY(pruned);
    }

    // The engine reads each layer's probe scores only after waiting for that layer: a backend
    // that delivers them late, layer by layer, gives the same tokens, lengths, positions and
    // logits, and a decode step of the whole batch waits once per layer (so each selection can
    // overlap the device's later layers), not once per sequence.
    void late_probe_scores_change_nothing()
    {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        const int n_vocab = model_->config().n_vocab;
        std::vector<Request> requests;
        for (int i = 0; i < 8; ++i) {
            std::uniform_int_distribution<int> length(9, 180), steps(40, 80), join(0, 10);
            requests.push_back({random_prompt(rng, length(rng), n_vocab), config_for(i), steps(rng), join(rng)});
        }
        DeferringBackend late(model_->backend());
        const std::vector<Trace> expected = run_batched(model_->backend(), requests);
        const std::vector<Trace> actual = run_batched(late, requests);
        QVERIFY(late.deferred > 0);
        for (size_t i = 0; i < requests.size(); ++i) {
            QCOMPARE(actual[i].tokens, expected[i].tokens);
            QCOMPARE(actual[i].lengths, expected[i].lengths);
            QCOMPARE(actual[i].final_positions, expected[i].final_positions);
            QCOMPARE(actual[i].logits, expected[i].logits);
        }
        // Only a decode step that compressed some layer could have read the scores too early.
        bool decode_compressed = false;
        for (const Trace& t : expected)
            for (size_t step = 2; step < t.lengths.size(); ++step)
                for (size_t l = 0; l < t.lengths[step].size(); ++l)
                    decode_compressed = decode_compressed || t.lengths[step][l] < t.lengths[step - 1][l];
        QVERIFY(decode_compressed);

        std::vector<std::unique_ptr<InferenceSession>> sessions;
        std::vector<InferenceSession*> batch;
        for (int i = 0; i < 3; ++i) {
            sessions.push_back(std::make_unique<InferenceSession>(late, config_for(i)));
            sessions.back()->prefill(random_prompt(rng, 40, n_vocab));
            batch.push_back(sessions.back().get());
        }
        late.waits = 0;
        InferenceSession::decode_batch(batch, std::vector<int32_t>{5, 6, 7});
        QCOMPARE(late.waits, model_->config().n_layers);
    }

    void rejects_malformed_batches()
    {
        Backend& backend = model_->backend();
        InferenceSession a(backend, CompressionConfig{}), b(backend, CompressionConfig{});
        const std::vector<int32_t> prompt{1, 400, 500};
        a.prefill(prompt);
        b.prefill(prompt);
        std::vector<InferenceSession*> both{&a, &b}, twice{&a, &a};
        const std::vector<int32_t> one_token{7};
        QVERIFY_THROWS_EXCEPTION(Error, InferenceSession::decode_batch(both, one_token));
        QVERIFY_THROWS_EXCEPTION(Error, InferenceSession::decode_batch(twice, std::vector<int32_t>{7, 8}));
        QVERIFY_THROWS_EXCEPTION(Error, InferenceSession::decode_batch({}, {}));

        auto other = Model::open(model_->path(), BackendPreference::Cpu);
        InferenceSession foreign(other->backend(), CompressionConfig{});
        foreign.prefill(prompt);
        std::vector<InferenceSession*> mixed{&a, &foreign};
        QVERIFY_THROWS_EXCEPTION(Error, InferenceSession::decode_batch(mixed, std::vector<int32_t>{7, 8}));
        // Nothing ran: the sessions still hold their prompts.
        QCOMPARE(a.next_position(), 3);
        QCOMPARE(foreign.next_position(), 3);
    }

    // check_sequence_rows, which every backend calls first: the sequences must tile the rows in
    // order, each with a cache, and a probe needs a place for its scores, a start within the
    // rows and one weight per probed row.
    void layer_steps_refuse_malformed_rows()
    {
        Backend& backend = model_->backend();
        const std::unique_ptr<HiddenStates> hidden = backend.embed(std::vector<int32_t>{1, 400, 500, 300});
        const std::unique_ptr<KvLayerStore> a = backend.new_kv_layer(), b = backend.new_kv_layer();
        const std::vector<int32_t> two{0, 1};
        std::vector<float> out;
        const AttentionProbe good{1, {1.0f}}, negative{-1, {1.0f, 1.0f, 1.0f}}, short_weights{0, {1.0f}};
        const auto refuses = [&](std::vector<SequenceRows> rows, const char* why) {
            bool threw = false;
            try {
                backend.run_layer_batch(0, *hidden, rows);
            } catch (const Error&) {
                threw = true;
            }
            QVERIFY2(threw, why);
        };
        refuses({{0, two, a.get()}, {3, two, b.get()}}, "a gap between sequences");
        refuses({{0, two, a.get()}, {2, two, nullptr}}, "no cache");
        refuses({{0, two, a.get()}}, "rows left uncovered");
        refuses({{0, two, a.get(), &good, nullptr}, {2, two, b.get()}}, "nowhere to write the scores");
        refuses({{0, two, a.get(), &negative, &out}, {2, two, b.get()}}, "a probe before the first row");
        refuses({{0, two, a.get(), &short_weights, &out}, {2, two, b.get()}}, "too few row weights");
        QCOMPARE(a->size(), 0);  // nothing ran
        backend.run_layer_batch(0, *hidden, std::vector<SequenceRows>{{0, two, a.get(), &good, &out}, {2, two, b.get()}});
        QCOMPARE(a->size(), 2);
        QCOMPARE(out.size(), size_t(2));
    }

    // One sequence running out of KV memory mid-step fails the step for the whole batch, and
    // every session of the batch is left empty (never half-updated) and usable again.
    void failure_mid_step_resets_the_batch()
    {
        Backend& backend = model_->backend();
        InferenceSession roomy(backend, CompressionConfig::full_cache());
        InferenceSession tight(backend, CompressionConfig::full_cache(), 1);  // 1 byte: nothing fits
        std::vector<InferenceSession*> both{&roomy, &tight};
        const std::vector<int32_t> p1{1, 400, 500, 300}, p2{1, 200};
        const std::vector<std::span<const int32_t>> prompts{p1, p2};
        QVERIFY_THROWS_EXCEPTION(Error, InferenceSession::extend_batch(both, prompts));
        for (InferenceSession* s : both) {
            QCOMPARE(s->next_position(), 0);
            const auto lengths = s->cache().lengths();
            QVERIFY(std::all_of(lengths.begin(), lengths.end(), [](int n) { return n == 0; }));
        }
        const std::vector<float> logits = roomy.prefill(p1);
        QCOMPARE(static_cast<int>(logits.size()), model_->config().n_vocab);
    }

    // The top-logits steps give, for the same inputs, each row's highest logits of what the
    // whole-row steps give (prompt and decode), and refuse k < 1 without running.
    void top_logits_steps_select_from_the_same_rows()
    {
        Backend& backend = model_->backend();
        std::vector<std::unique_ptr<InferenceSession>> whole, top;
        std::vector<InferenceSession*> whole_batch, top_batch;
        for (int i = 0; i < 3; ++i) {
            whole.push_back(std::make_unique<InferenceSession>(backend, config_for(i)));
            top.push_back(std::make_unique<InferenceSession>(backend, config_for(i)));
            whole_batch.push_back(whole.back().get());
            top_batch.push_back(top.back().get());
        }
        const std::vector<int32_t> p1{1, 400, 500, 300, 20}, p2{1, 200}, p3{1, 9, 8, 7, 6, 5, 4, 3};
        const std::vector<std::span<const int32_t>> prompts{p1, p2, p3};
        const auto check = [&](const std::vector<std::vector<float>>& rows, const std::vector<TopLogits>& got, int k) {
            QCOMPARE(got.size(), rows.size());
            for (size_t i = 0; i < rows.size(); ++i) {
                const TopLogits want = select_top_logits(rows[i], k);
                QCOMPARE(got[i].ids, want.ids);
                QCOMPARE(got[i].values, want.values);
            }
        };
        check(InferenceSession::extend_batch(whole_batch, prompts),
              InferenceSession::extend_batch_top(top_batch, prompts, 40), 40);
        const std::vector<int32_t> next{11, 12, 13};
        for (int k : {1, 5, model_->config().n_vocab + 3})
            check(InferenceSession::decode_batch(whole_batch, next), InferenceSession::decode_batch_top(top_batch, next, k),
                  k);
        QVERIFY_THROWS_EXCEPTION(Error, InferenceSession::decode_batch_top(top_batch, next, 0));
        QCOMPARE(top_batch.front()->next_position(), whole_batch.front()->next_position());
    }

private:
    std::shared_ptr<Model> model_;
};

QTEST_APPLESS_MAIN(BatchedDecodingTest)
#include "test_batched_decoding.moc"
