// The policies' decisions on synthetic scores, config validation, and the baselines on the
// real model at equal memory.
#include <QtTest>

#include <numeric>
#include <random>

#include "generate/inference_session.h"
#include "generate/sampler.h"
#include "kv/compression_policy.h"
#include "kv/compression_presets.h"
#include "kv/pyramid_schedule.h"
#include "model/model.h"
#include "index_lists.h"
#include "random_values.h"
#include "shared_data.h"
#include "util/error.h"

using namespace pyramid;
using pyramid::test::range;

namespace {

std::vector<float> random_scores(int n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::vector<float> s(static_cast<size_t>(n));
    for (float& x : s)
        x = u(rng);
    return s;
}

// Indices of the k largest values of s[0, limit), ascending, found the slow obvious way.
std::vector<int> brute_top(const std::vector<float>& s, int limit, int k)
{
    std::vector<int> idx = range(0, limit);
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return s[a] > s[b]; });
    idx.resize(static_cast<size_t>(k));
    std::sort(idx.begin(), idx.end());
    return idx;
}

} // namespace

class CompressionPoliciesTest : public QObject {
    Q_OBJECT
private slots:
    void local_keeps_sinks_and_recent()
    {
        CompressionConfig config;
        config.policy = CompressionPolicyKind::Local;
        config.layer_budgets = {40, 10};
        auto policy = make_compression_policy(config, 2);
        policy->begin_prefill(30, 0);
        QVERIFY(!policy->prefill_probe(0, 30));
        QVERIFY(!policy->after_prefill_layer(0, 30, 30, {}).keep_entries);  // within budget
        const PrefillDecision d = policy->after_prefill_layer(1, 30, 30, {});
        QVERIFY(!d.keep_rows);  // the next layer still sees every token
        std::vector<int> expected = range(0, 4);
        for (int j : range(24, 30))
            expected.push_back(j);
        QCOMPARE(*d.keep_entries, expected);
        // Decoding: one more entry, the oldest non-sink one goes.
        auto keep = policy->after_decode_layer(1, 11, {});
        QVERIFY(keep);
        QCOMPARE(keep->front(), 0);
        QCOMPARE(keep->at(4), 5);
        QCOMPARE(static_cast<int>(keep->size()), 10);
    }

    void h2o_keeps_heavy_hitters_and_recent()
    {
        CompressionConfig config;
        config.policy = CompressionPolicyKind::H2O;
        config.layer_budgets = {12};
        config.baseline_recent_fraction = 0.5;
        auto policy = make_compression_policy(config, 1);
        policy->begin_prefill(40, 0);
        const auto probe = policy->prefill_probe(0, 40);
        QVERIFY(probe && probe->first_row == 0 && probe->row_weights.size() == 40u);  // every row counts
        const std::vector<float> scores = random_scores(40, 7);
        const PrefillDecision d = policy->after_prefill_layer(0, 40, 40, scores);
        std::vector<int> expected = brute_top(scores, 34, 6);
        for (int j : range(34, 40))
            expected.push_back(j);
        QCOMPARE(*d.keep_entries, expected);

        // A decode step adds attention to the accumulated scores: a new heavy hitter stays.
        std::vector<float> row(13, 0.0f);
        row[1] = 100.0f;  // entry 1 of the kept entries (expected[1])
        const auto keep = policy->after_decode_layer(0, 13, row);
        QVERIFY(keep);
        QCOMPARE(static_cast<int>(keep->size()), 12);
        QVERIFY(std::find(keep->begin(), keep->end(), 1) != keep->end());
    }

    void tiny_budgets_keep_the_newest_token()
    {
        // A budget at or below the sink count (local), or a recent fraction of 0 (H2O), still
        // keeps the token a decode step just added.
        CompressionConfig local;
        local.policy = CompressionPolicyKind::Local;
        local.layer_budgets = {3};
        auto l = make_compression_policy(local, 1);
        l->begin_prefill(3, 0);
        QVERIFY(!l->after_prefill_layer(0, 3, 3, {}).keep_entries);
        QCOMPARE(*l->after_decode_layer(0, 4, {}), (std::vector<int>{0, 1, 3}));

        CompressionConfig h2o;
        h2o.policy = CompressionPolicyKind::H2O;
        h2o.layer_budgets = {4};
        h2o.baseline_recent_fraction = 0.0;
        auto h = make_compression_policy(h2o, 1);
        h->begin_prefill(4, 0);
        (void)h->after_prefill_layer(0, 4, 4, {5.0f, 4.0f, 3.0f, 2.0f});
        const auto keep = h->after_decode_layer(0, 5, {1.0f, 1.0f, 1.0f, 1.0f, 0.5f});
        QVERIFY(keep);
        QCOMPARE(keep->back(), 4);
        QCOMPARE(static_cast<int>(keep->size()), 4);
    }

    void pyramid_selects_by_window_attention()
    {
        CompressionConfig config;  // reference-7b
        config.pyramid.min_context_length = 4;
        config.pyramid.prefill_decay_ratio = 0.5;
        auto policy = make_compression_policy(config, 4);
        const int n = 100;  // r = 20, window 21, context 79
        policy->begin_prefill(n, 0);
        QVERIFY(!policy->prefill_probe(0, n));  // cosine schedule is 1 at layer 0
        const auto probe = policy->prefill_probe(1, n);
        QVERIFY(probe);
        QCOMPARE(probe->first_row, n - 21);
        QCOMPARE(probe->row_weights.size(), size_t(21));
        QVERIFY(probe->row_weights.back() > probe->row_weights.front());  // newest rows weigh more

        const std::vector<float> scores = random_scores(n, 11);
        const PrefillDecision d = policy->after_prefill_layer(1, n, n, scores);
        QVERIFY(d.keep_rows && !d.keep_entries);  // drops hidden states; layer 1's cache keeps all
        const int k = prefill_keep_count(79, 4, decay_schedule(DecaySchedule::Cosine, 1, 4, 0.5));
        std::vector<float> with_sinks = scores;
        for (int j = 0; j < 4; ++j)
            with_sinks[static_cast<size_t>(j)] = INFINITY;
        std::vector<int> expected = brute_top(with_sinks, 79, k);
        for (int j : range(79, n))
            expected.push_back(j);
        QCOMPARE(*d.keep_rows, expected);
    }

    void invalid_configs_are_rejected_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("json");
        QTest::newRow("ratio zero") << "prefill_decay_ratio" << R"({"prefill_decay_ratio": 0})";
        QTest::newRow("ratio above one") << "gen_compress_ratio" << R"({"gen_compress_ratio": 1.5})";
        QTest::newRow("negative min context") << "min_context_length" << R"({"min_context_length": -1})";
        QTest::newRow("interval zero") << "layerwise_downsample_interval" << R"({"layerwise_downsample_interval": 0})";
        QTest::newRow("recent one") << "recent_ratio" << R"({"recent_ratio": 1.0})";
        QTest::newRow("bad strategy") << "decay strategy" << R"({"prefill_decay_strategy": "zigzag"})";
        QTest::newRow("wrong type") << "sink_tokens must be a whole number" << R"({"sink_tokens": "four"})";
        QTest::newRow("chunk zero") << "exceed_length_to_compress" << R"({"exceed_length_to_compress": 0})";
        // Values that used to wrap or round silently, and keys nobody reads.
        QTest::newRow("budget wraps") << "layer_budgets[0] = 4294967297 is out of range"
                                      << R"({"layer_budgets": [4294967297, 4]})";
        QTest::newRow("sinks wrap") << "sink_tokens = 4294967301 is out of range" << R"({"sink_tokens": 4294967301})";
        QTest::newRow("huge sinks") << "sink_tokens = 1e+30 is out of range" << R"({"sink_tokens": 1e30})";
        QTest::newRow("fraction") << "min_context_length must be a whole number, found 3.7"
                                  << R"({"min_context_length": 3.7})";
        QTest::newRow("misspelt key") << "unknown setting \"recent_ratoi\" (did you mean \"recent_ratio\"?)"
                                      << R"({"recent_ratoi": 0.3})";
        QTest::newRow("repeated key") << "the key \"sink_tokens\" appears twice" << R"({"sink_tokens": 4, "sink_tokens": 8})";
        QTest::newRow("deep nesting") << "nested deeper than 64 levels"
                                      << QString("{\"layer_budgets\": ") + QString(70000, '[') + QString(70000, ']') + "}";
    }

    void invalid_configs_are_rejected()
    {
        QFETCH(QString, field);
        QFETCH(QString, json);
        try {
            compression_config_from_json(json.toStdString());
            QFAIL("accepted an invalid config");
        } catch (const Error& e) {
            QVERIFY2(QString(e.what()).contains(field), e.what());
            QVERIFY2(std::string(e.what()).size() < 200, "a message echoed the input at length");
        }
    }

    void whole_numbers_written_as_floats_are_accepted()
    {
        const CompressionConfig c = compression_config_from_json(R"({"sink_tokens": 8.0, "layer_budgets": [16, 32.0]})");
        QCOMPARE(c.pyramid.sink_tokens, 8);
        QCOMPARE(c.layer_budgets, (std::vector<int>{16, 32}));
    }

    void json_round_trip_and_presets()
    {
        CompressionConfig c = compression_preset("reference-13b");
        QCOMPARE(c.pyramid.prefill_decay_ratio, 0.8);
        QCOMPARE(c.pyramid.layerwise_downsample_interval, 2);
        c.policy = CompressionPolicyKind::Local;
        c.layer_budgets = {5, 6};
        const CompressionConfig back = compression_config_from_json(compression_config_to_json(c));
        QCOMPARE(compression_config_to_json(back), compression_config_to_json(c));
        QVERIFY_THROWS_EXCEPTION(Error, compression_preset("reference-70b"));
    }

    void short_prompts_on_the_model()
    {
        PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
        auto model = Model::open(path, BackendPreference::Cpu);
        for (int n : {1, 3, 20}) {  // 20 tokens: shorter than min_context + window, no selection
            InferenceSession session(model->backend(), CompressionConfig{});
            const std::vector<int32_t> prompt(static_cast<size_t>(n), 300);
            const auto logits = session.prefill(prompt);
            QCOMPARE(static_cast<int>(logits.size()), model->config().n_vocab);
            QCOMPARE(session.cache().lengths(), std::vector<int>(5, n));
            session.decode(301);
            QCOMPARE(session.cache().lengths(), std::vector<int>(5, n + 1));
        }
    }

    void sinks_survive_generation_after_a_short_prompt()
    {
        // A prompt shorter than the sinks puts them in the first generation chunk: they stay,
        // and the planner counts them as the cache holds them.
        PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
        auto model = Model::open(path, BackendPreference::Cpu);
        const CompressionConfig config;
        InferenceSession session(model->backend(), config);
        std::vector<float> logits = session.prefill(std::vector<int32_t>{1, 300});
        constexpr int kSteps = 40;
        for (int step = 0; step < kSteps; ++step)
            logits = session.decode(Sampler::argmax(logits));
        const PyramidLengthPlan plan = plan_pyramid_lengths(config.pyramid, 5, 2, kSteps);
        QCOMPARE(session.cache().lengths(), plan.after_step.back());
        for (int l = 0; l < 5; ++l) {
            const auto pos = session.cache().positions(l);
            for (int p = 0; p < config.pyramid.sink_tokens; ++p)
                QVERIFY2(std::find(pos.begin(), pos.end(), p) != pos.end(),
                         qPrintable(QStringLiteral("layer %1 lost sink position %2").arg(l).arg(p)));
        }
        QVERIFY(session.cache().length(4) < 2 + kSteps);  // it did compress
    }

    void baselines_match_pyramid_memory()
    {
        PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
        auto model = Model::open(path, BackendPreference::Cpu);
        const std::vector<int32_t> prompt = test::random_tokens(256, 3, 3, 500);
        CompressionConfig config;
        config.pyramid.prefill_decay_ratio = 0.5;
        config.pyramid.min_context_length = 16;
        const int steps = 40;
        const auto plan = plan_pyramid_lengths(config.pyramid, 5, 256, steps);

        size_t pyramid_bytes = 0;
        for (CompressionPolicyKind kind : {CompressionPolicyKind::Pyramid, CompressionPolicyKind::Local,
                                           CompressionPolicyKind::H2O}) {
            config.policy = kind;
            InferenceSession session(model->backend(), config);
            auto logits = session.prefill(prompt);
            for (int step = 0; step < steps; ++step)
                logits = session.decode(static_cast<int32_t>(3 + step));
            const auto lengths = session.cache().lengths();
            if (kind == CompressionPolicyKind::Pyramid) {
                QCOMPARE(lengths, plan.after_step.back());
                pyramid_bytes = session.cache().bytes();
            } else {  // PyramidInfer's total, spread evenly as StreamingLLM and H2O run
                const int mean = static_cast<int>(std::lround(
                    std::accumulate(lengths.begin(), lengths.end(), 0.0) / 5.0));
                QCOMPARE(lengths, std::vector<int>(5, mean));  // same budget at every layer
                const double ratio = double(session.cache().bytes()) / double(pyramid_bytes);
                QVERIFY(std::abs(ratio - 1.0) < 0.01);
            }
            // Kept positions are ascending and the newest is always there.
            for (int l = 0; l < 5; ++l) {
                const auto pos = session.cache().positions(l);
                QVERIFY(std::is_sorted(pos.begin(), pos.end()));
                QCOMPARE(pos.back(), 256 + steps - 1);
            }
        }
    }
};

QTEST_APPLESS_MAIN(CompressionPoliciesTest)
#include "test_compression_policies.moc"
