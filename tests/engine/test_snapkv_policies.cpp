// SnapKV and PyramidKV: what they keep on hand-made attention patterns, PyramidKV's layer
// budgets, the budget fraction, and both on the model (selection once, then growth).
#include <QtTest>

#include <numeric>
#include <random>

#include "generate/inference_session.h"
#include "kv/baseline_budget.h"
#include "kv/compression_policy.h"
#include "kv/kv_footprint.h"
#include "kv/snapkv_policy.h"
#include "model/model.h"
#include "index_lists.h"
#include "random_values.h"
#include "shared_data.h"
#include "snapkv_configs.h"

using namespace pyramid;
using pyramid::test::joined;
using pyramid::test::range;
using pyramid::test::snapkv_config;

class SnapKVPoliciesTest : public QObject {
    Q_OBJECT
private slots:
    void probe_is_the_observation_window()
    {
        auto policy = make_compression_policy(snapkv_config(CompressionPolicyKind::SnapKV, 8, 1), 2);
        policy->begin_prefill(100, 0);
        const auto probe = policy->prefill_probe(0, 100);
        QVERIFY(probe);
        QCOMPARE(probe->first_row, 92);
        QCOMPARE(probe->row_weights, std::vector<float>(8, 1.0f));
        // A prompt shorter than the window: all of it observes.
        const auto short_probe = policy->prefill_probe(1, 5);
        QCOMPARE(short_probe->first_row, 0);
        QCOMPARE(short_probe->row_weights.size(), 5u);
        // Nothing is probed or compressed while generating.
        QVERIFY(!policy->decode_probe(0));
        QVERIFY(!policy->after_decode_layer(0, 500, std::vector<float>(500, 1.0f)));
    }

    void keeps_the_window_and_the_peaks()
    {
        // 40 entries, window 4, budget 10: the six highest scores among entries 0..35 plus 36..39.
        std::vector<float> scores(40, 0.01f);
        for (int j : {2, 9, 17, 23, 30, 33})
            scores[static_cast<size_t>(j)] = 1.0f + 0.1f * j;
        scores[38] = 50.0f;  // the window's own scores do not matter: it stays anyway
        const auto keep = snapkv_keep(scores, 4, 1, 10);
        QVERIFY(keep);
        QCOMPARE(*keep, (std::vector<int>{2, 9, 17, 23, 30, 33, 36, 37, 38, 39}));
        QVERIFY(!snapkv_keep(scores, 4, 1, 40));  // all fit
        // A budget below the window still keeps the whole window (the newest words of the
        // question), and a prompt no longer than the window is kept whole.
        QCOMPARE(*snapkv_keep(scores, 4, 1, 3), (std::vector<int>{36, 37, 38, 39}));
        QVERIFY(!snapkv_keep(std::vector<float>(16, 1.0f), 32, 7, 12));
    }

    void pooling_keeps_a_cluster_over_a_lone_spike()
    {
        // Entry 5 is the single highest score, but 20..22 together draw more attention: with
        // kernel 1 the spike wins the one slot; pooled over 3 neighbours, the cluster's centre.
        std::vector<float> scores(30, 0.0f);
        scores[5] = 1.0f;
        scores[20] = scores[21] = scores[22] = 0.6f;
        QCOMPARE(*snapkv_keep(scores, 2, 1, 3), (std::vector<int>{5, 28, 29}));
        QCOMPARE(*snapkv_keep(scores, 2, 3, 3), (std::vector<int>{21, 28, 29}));
        // Zero padding at the ends: an edge entry averages over the kernel's full width.
        std::vector<float> edge(10, 0.0f);
        edge[0] = 0.9f;
        edge[5] = 0.5f;
        edge[6] = 0.5f;  // pooled(5) = pooled(6) = 1.0 / 3 > pooled(0) = 0.9 / 3
        QCOMPARE(*snapkv_keep(edge, 1, 3, 2), (std::vector<int>{5, 9}));
    }

    void extending_selects_over_the_whole_cache()
    {
        // A second prefill (a conversation's next message) re-selects among old and new
        // entries by the new message's window.
        CompressionConfig c = snapkv_config(CompressionPolicyKind::SnapKV, 4, 1);
        c.layer_budgets = {12};
        auto policy = make_compression_policy(c, 1);
        policy->begin_prefill(10, 12);
        QCOMPARE(policy->prefill_probe(0, 10)->first_row, 6);
        std::vector<float> scores(22, 0.0f);
        for (int j : {0, 1, 2, 3, 4, 5, 6, 7})
            scores[static_cast<size_t>(j)] = 1.0f;
        const PrefillDecision d = policy->after_prefill_layer(0, 10, 22, scores);
        QVERIFY(!d.keep_rows);  // every row goes on to the next layer
        QCOMPARE(*d.keep_entries, joined(range(0, 8), range(18, 22)));
    }

    void pyramidkv_budgets_form_an_arithmetic_series()
    {
        // Average 100 with window 8: 92 selected on average; top = 92 / 20 = 4.6, bottom = 179.4.
        const std::vector<int> b = pyramidkv_layer_budgets(100, 8, 4096, 5, 20.0);
        QCOMPARE(b, (std::vector<int>{8 + 179, 8 + 136, 8 + 92, 8 + 48, 8 + 5}));
        QVERIFY(std::abs(std::accumulate(b.begin(), b.end(), 0) - 500) <= 2);
        // A short prompt caps the bottom layer at what there is; the top takes the rest.
        const std::vector<int> capped = pyramidkv_layer_budgets(100, 8, 158, 3, 20.0);
        QCOMPARE(capped.front(), 158);
        QCOMPARE(capped.back(), 8 + 34);
        // Nothing to select beyond the window: every layer keeps the average.
        QCOMPARE(pyramidkv_layer_budgets(6, 8, 4096, 4, 20.0), std::vector<int>(4, 6));
    }

    void budget_fraction_sets_the_share_of_a_full_cache()
    {
        CompressionConfig c;
        c.policy = CompressionPolicyKind::H2O;
        c.budget_fraction = 0.25;
        BaselineBudget budget(c, 4);
        budget.begin(1000);
        for (int l = 0; l < 4; ++l)
            QCOMPARE(budget.after_prefill(l), 250);
        QCOMPARE(budget.after_step(0, 0), 250);  // 1001 tokens seen
        QCOMPARE(budget.after_step(0, 3), 251);  // 1004
        c.policy = CompressionPolicyKind::PyramidKV;
        c.observation_window = 32;
        BaselineBudget pyramidkv(c, 4);
        pyramidkv.begin(1000);
        std::vector<int> layers;
        for (int l = 0; l < 4; ++l)
            layers.push_back(pyramidkv.after_prefill(l));
        QCOMPARE(layers, pyramidkv_layer_budgets(250, 32, 1000, 4, 20.0));
        QVERIFY(layers.front() > layers.back());
    }

    void on_the_model_select_once_then_grow_data()
    {
        QTest::addColumn<int>("kind");
        QTest::newRow("snapkv") << static_cast<int>(CompressionPolicyKind::SnapKV);
        QTest::newRow("pyramidkv") << static_cast<int>(CompressionPolicyKind::PyramidKV);
    }

    void on_the_model_select_once_then_grow()
    {
        QFETCH(int, kind);
        PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
        auto model = Model::open(path, BackendPreference::Cpu);
        CompressionConfig c = snapkv_config(static_cast<CompressionPolicyKind>(kind), 16, 7);
        c.budget_fraction = 0.4;
        const std::vector<int32_t> prompt = test::random_tokens(300, 5, 3, 500);
        InferenceSession session(model->backend(), c);
        auto logits = session.prefill(prompt);
        const int n_layers = model->config().n_layers;
        const KvFootprint planned = plan_kv_footprint(c, n_layers, 300, 10);
        QCOMPARE(session.cache().lengths(), planned.after_prefill);
        const int total = std::accumulate(planned.after_prefill.begin(), planned.after_prefill.end(), 0);
        QVERIFY(std::abs(total - n_layers * 120) <= n_layers);
        for (int l = 0; l < n_layers; ++l) {
            const auto pos = session.cache().positions(l);
            QVERIFY(std::is_sorted(pos.begin(), pos.end()));
            for (int p = 300 - 16; p < 300; ++p)  // the observation window stays
                QVERIFY(std::find(pos.begin(), pos.end(), p) != pos.end());
        }
        for (int step = 0; step < 10; ++step)
            logits = session.decode(static_cast<int32_t>(3 + step));
        std::vector<int> grown = planned.after_prefill;
        for (int& g : grown)
            g += 10;
        QCOMPARE(session.cache().lengths(), grown);
    }
};

QTEST_APPLESS_MAIN(SnapKVPoliciesTest)
#include "test_snapkv_policies.moc"
