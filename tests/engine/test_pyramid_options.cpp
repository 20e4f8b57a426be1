// PyramidInfer's two options beyond the paper (PyramidSettings): what they keep on hand-made
// attention patterns, that they are off by default, and the cache-only variant on the model
// (same per-layer lengths as the paper's rule, prefill and generation).
#include <QtTest>

#include <numeric>
#include <random>

#include "generate/inference_session.h"
#include "kv/compression_policy.h"
#include "kv/pyramid_schedule.h"
#include "kv/score_pooling.h"
#include "model/model.h"
#include "index_lists.h"
#include "random_values.h"
#include "shared_data.h"
#include "util/error.h"

using namespace pyramid;
using pyramid::test::joined;
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

// For a prompt of 100 tokens: r = 20, a window of 21, a context of 79. A constant schedule
// selects at every layer: at ratio 0.09, 7 of the 79 (4 sinks and 3 chosen).
CompressionConfig small_pyramid(double ratio = 0.09)
{
    CompressionConfig c;
    c.pyramid.prefill_decay_strategy = DecaySchedule::Constant;
    c.pyramid.prefill_decay_ratio = ratio;
    c.pyramid.min_context_length = 4;
    return c;
}

} // namespace

class PyramidOptionsTest : public QObject {
    Q_OBJECT
private slots:
    void off_by_default()
    {
        const PyramidSettings defaults;
        QCOMPARE(defaults.observation_window, 0);
        QCOMPARE(defaults.pooling_kernel, 1);
        QVERIFY(!defaults.keep_hidden_states);
        // The golden files' configs have none of the keys: they read as off.
        const CompressionConfig golden = compression_config_from_json(R"({"prefill_decay_ratio": 0.5})");
        QCOMPARE(golden.pyramid.observation_window, 0);
        QVERIFY(!golden.pyramid.keep_hidden_states);

        // The whole recent window votes, and the policy drops hidden states.
        auto policy = make_compression_policy(small_pyramid(), 3);
        policy->begin_prefill(100, 0);
        const auto probe = policy->prefill_probe(0, 100);
        QVERIFY(probe);
        QCOMPARE(probe->first_row, 79);
        QCOMPARE(probe->row_weights.size(), size_t(21));
        const PrefillDecision d = policy->after_prefill_layer(0, 100, 100, random_scores(100, 5));
        QVERIFY(d.keep_rows && !d.keep_entries);
        QCOMPARE(policy->prompt_rows(100, 3), plan_pyramid_lengths(small_pyramid().pyramid, 3, 100, 0).after_prefill);
    }

    void options_round_trip_and_are_checked()
    {
        const CompressionConfig c = compression_config_from_json(
            R"({"pyramid_observation_window": 32, "pyramid_pooling_kernel": 7, "keep_hidden_states": true})");
        QCOMPARE(c.pyramid.observation_window, 32);
        QCOMPARE(c.pyramid.pooling_kernel, 7);
        QVERIFY(c.pyramid.keep_hidden_states);
        QCOMPARE(compression_config_to_json(compression_config_from_json(compression_config_to_json(c))),
                 compression_config_to_json(c));
        for (const char* bad : {R"({"pyramid_observation_window": -1})", R"({"pyramid_pooling_kernel": 4})",
                                R"({"pyramid_pooling_kernel": 0})", R"({"keep_hidden_states": 1})"})
            QVERIFY_THROWS_EXCEPTION(Error, compression_config_from_json(bad));
    }

    void observation_window_probes_the_last_tokens()
    {
        CompressionConfig c = small_pyramid();
        c.pyramid.observation_window = 8;
        auto policy = make_compression_policy(c, 3);
        policy->begin_prefill(100, 0);
        const auto probe = policy->prefill_probe(1, 100);
        QVERIFY(probe);
        QCOMPARE(probe->first_row, 92);  // the last 8 rows, inside the recent window
        QCOMPARE(probe->row_weights.size(), size_t(8));
        QVERIFY(probe->row_weights.back() > probe->row_weights.front());  // still weighted to the newest
        // The recent window is still kept whole: the 21 newest rows go on.
        const PrefillDecision d = policy->after_prefill_layer(1, 100, 100, random_scores(100, 9));
        QCOMPARE(std::vector<int>(d.keep_rows->end() - 21, d.keep_rows->end()), range(79, 100));

        // A window wider than the recent window counts as the recent window.
        c.pyramid.observation_window = 500;
        auto wide = make_compression_policy(c, 3);
        wide->begin_prefill(100, 0);
        QCOMPARE(wide->prefill_probe(1, 100)->first_row, 79);
    }

    void pooling_keeps_a_peak_with_its_neighbours()
    {
        // One sharp peak at 40 and two lone lesser ones at 10 and 60: unpooled, the three peaks
        // are chosen; pooled over 3, the peak's neighbours outscore the lone ones.
        std::vector<float> scores(100, 0.01f);
        scores[40] = 1.0f;
        scores[10] = 0.3f;
        scores[60] = 0.2f;
        CompressionConfig c = small_pyramid();
        c.pyramid.observation_window = 32;
        for (const auto& [kernel, chosen] :
             {std::pair{1, std::vector<int>{10, 40, 60}}, std::pair{3, std::vector<int>{39, 40, 41}}}) {
            c.pyramid.pooling_kernel = kernel;
            auto policy = make_compression_policy(c, 3);
            policy->begin_prefill(100, 0);
            const PrefillDecision d = policy->after_prefill_layer(0, 100, 100, scores);
            // The sinks' infinities are set after pooling: entry 4 does not inherit them.
            QCOMPARE(*d.keep_rows, joined(joined(range(0, 4), chosen), range(79, 100)));
        }
        QCOMPARE(average_pool(std::vector<float>{3.0f, 0.0f, 6.0f}, 3), (std::vector<float>{1.0f, 3.0f, 2.0f}));
    }

    void keeping_hidden_states_trims_caches_as_the_pyramid_passes_rows()
    {
        // Three layers, each with its own scores over the prompt's entries. The paper's rule
        // passes rows R0 (chosen at layer 0) into layer 1 and R1 (chosen among R0 by layer 1's
        // scores) into layer 2. Keeping hidden states, every layer sees all rows, and layer l's
        // cache keeps what would have entered it: all, then R0, then R1. Earlier turns' entries
        // (the first 50 of each cache) stay. Ratio 0.5: 39 of 79 go on, then 19 of 39.
        const int n = 100, cached = 50;
        const std::vector<float> s0 = random_scores(cached + n, 1), s1 = random_scores(cached + n, 2);
        const std::vector<float> s2 = random_scores(cached + n, 3);

        auto paper = make_compression_policy(small_pyramid(0.5), 3);
        paper->begin_prefill(n, cached);
        const std::vector<int> r0 = *paper->after_prefill_layer(0, n, cached + n, s0).keep_rows;
        std::vector<float> s1_of_r0(s1.begin(), s1.begin() + cached);
        for (int r : r0)
            s1_of_r0.push_back(s1[static_cast<size_t>(cached + r)]);
        const int n1 = static_cast<int>(r0.size());
        std::vector<int> r1 = *paper->after_prefill_layer(1, n1, cached + n1, s1_of_r0).keep_rows;
        for (int& r : r1)
            r = r0[static_cast<size_t>(r)];

        CompressionConfig c = small_pyramid(0.5);
        c.pyramid.keep_hidden_states = true;
        auto policy = make_compression_policy(c, 3);
        QCOMPARE(policy->prompt_rows(n, 3), std::vector<int>(3, n));  // every layer computes every token
        policy->begin_prefill(n, cached);
        QCOMPARE(policy->prefill_probe(0, n)->first_row, 79);
        const PrefillDecision d0 = policy->after_prefill_layer(0, n, cached + n, s0);
        QVERIFY(!d0.keep_rows && !d0.keep_entries);  // layer 0 keeps everything that entered it
        QCOMPARE(policy->prefill_probe(1, n)->first_row, 79);  // the window is the prompt's last rows
        const PrefillDecision d1 = policy->after_prefill_layer(1, n, cached + n, s1);
        QVERIFY(!d1.keep_rows);
        std::vector<int> expected = range(0, cached);
        for (int r : r0)
            expected.push_back(cached + r);
        QCOMPARE(*d1.keep_entries, expected);
        const PrefillDecision d2 = policy->after_prefill_layer(2, n, cached + n, s2);
        expected = range(0, cached);
        for (int r : r1)
            expected.push_back(cached + r);
        QCOMPARE(*d2.keep_entries, expected);
    }

    void keeping_hidden_states_on_the_model()
    {
        // The prompt is computed whole (its logits are the full cache's), the caches have the
        // paper's lengths after it and after every generation chunk, and the sinks and the
        // newest tokens stay.
        PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
        auto model = Model::open(path, BackendPreference::Cpu);
        const std::vector<int32_t> prompt = test::random_tokens(256, 3, 3, 500);
        CompressionConfig config;
        config.pyramid.prefill_decay_ratio = 0.5;
        config.pyramid.min_context_length = 16;
        const int steps = 40;
        const PyramidLengthPlan plan = plan_pyramid_lengths(config.pyramid, 5, 256, steps);

        InferenceSession full(model->backend(), CompressionConfig::full_cache());
        const std::vector<float> full_logits = full.prefill(prompt);
        config.pyramid.keep_hidden_states = true;
        InferenceSession session(model->backend(), config);
        std::vector<float> logits = session.prefill(prompt);
        QCOMPARE(session.cache().lengths(), plan.after_prefill);
        QCOMPARE(logits, full_logits);
        for (int step = 0; step < steps; ++step)
            logits = session.decode(static_cast<int32_t>(3 + step));
        QCOMPARE(session.cache().lengths(), plan.after_step.back());
        for (int l = 0; l < 5; ++l) {
            const auto pos = session.cache().positions(l);
            QVERIFY(std::is_sorted(pos.begin(), pos.end()));
            QCOMPARE(std::vector<int32_t>(pos.begin(), pos.begin() + 4), (std::vector<int32_t>{0, 1, 2, 3}));
            QCOMPARE(pos.back(), 256 + steps - 1);
        }
    }
};

QTEST_APPLESS_MAIN(PyramidOptionsTest)
#include "test_pyramid_options.moc"
