// Sampling rules: greedy, seeded reproducibility, each filter restricting the draw, and
// drawing from a row's highest logits only (what a GPU backend sends back) giving the same
// tokens as drawing from the whole row.
#include <QtTest>

#include <limits>
#include <random>
#include <set>

#include "backend/top_logits.h"
#include "generate/sampler.h"
#include "kv/top_k.h"
#include "util/error.h"

using namespace pyramid;

namespace {

SamplingParams plain(float temperature)
{
    SamplingParams p;
    p.temperature = temperature;
    p.top_k = 0;
    p.top_p = 1.0f;
    p.min_p = 0.0f;
    p.repetition_penalty = 1.0f;
    p.seed = 42;
    return p;
}

std::set<int32_t> draws(const SamplingParams& p, const std::vector<float>& logits, int n = 2000)
{
    Sampler s(p, static_cast<int>(logits.size()));
    std::set<int32_t> seen;
    for (int i = 0; i < n; ++i)
        seen.insert(s.sample(logits, {}));
    return seen;
}

} // namespace

class SamplerTest : public QObject {
    Q_OBJECT
private slots:
    void greedy()
    {
        Sampler s(plain(0.0f), 4);
        QCOMPARE(s.sample(std::vector<float>{0.1f, 3.0f, -2.0f, 3.0f}, {}), 1);  // ties: lower id
    }

    void seeded_draws_repeat()
    {
        const std::vector<float> logits = {1, 2, 3, 2, 1, 0.5f};
        Sampler a(plain(1.0f), 6), b(plain(1.0f), 6);
        for (int i = 0; i < 50; ++i)
            QCOMPARE(a.sample(logits, {}), b.sample(logits, {}));
        QCOMPARE(draws(plain(1.0f), logits).size(), logits.size());  // everything is reachable
    }

    void filters_restrict_the_draw()
    {
        const std::vector<float> logits = {5.0f, 4.0f, 3.0f, 0.0f, -1.0f};
        SamplingParams p = plain(1.0f);
        p.top_k = 2;
        QCOMPARE(draws(p, logits), (std::set<int32_t>{0, 1}));
        p = plain(1.0f);
        p.top_p = 0.7f;  // p(0) = 0.66, p(1) = 0.24: the nucleus needs both
        QCOMPARE(draws(p, logits), (std::set<int32_t>{0, 1}));
        p = plain(1.0f);
        p.min_p = 0.2f;  // exp(-2) = 0.135 < 0.2: only 0 and 1 survive
        QCOMPARE(draws(p, logits), (std::set<int32_t>{0, 1}));
    }

    void repetition_penalty_demotes_seen_tokens()
    {
        SamplingParams p = plain(0.0f);
        p.repetition_penalty = 2.0f;
        Sampler s(p, 3);
        const std::vector<float> logits = {3.0f, 2.0f, -1.0f};
        QCOMPARE(s.sample(logits, std::vector<int32_t>{0}), 1);  // 3/2 < 2
        QCOMPARE(s.sample(logits, {}), 0);
    }

    // OpenAI's penalties: a seen token's logit loses frequency_penalty per time it was seen in
    // the window and presence_penalty once; after the repetition penalty, as llama.cpp.
    void frequency_and_presence_penalties_subtract_per_sighting()
    {
        const std::vector<float> logits = {3.0f, 2.6f, 2.0f};
        SamplingParams p = plain(0.0f);
        p.frequency_penalty = 0.25f;
        Sampler frequency(p, 3);
        QCOMPARE(frequency.sample(logits, std::vector<int32_t>{0}), 0);        // 2.75 > 2.6
        QCOMPARE(frequency.sample(logits, std::vector<int32_t>{0, 2, 0}), 1);  // 2.5 < 2.6
        p.repetition_window = 2;  // the first 0 is out of the window: 2.75 again
        QCOMPARE(Sampler(p, 3).sample(logits, std::vector<int32_t>{0, 2, 0}), 0);

        p = plain(0.0f);
        p.presence_penalty = 0.5f;
        Sampler presence(p, 3);
        QCOMPARE(presence.sample(logits, std::vector<int32_t>{0, 0, 0, 0}), 1);  // 2.5, however often
        QCOMPARE(presence.sample(logits, std::vector<int32_t>{0, 1}), 0);        // 2.5 against 2.1
        p.presence_penalty = -1.5f;  // negative: seen tokens are favoured (3.5 > 3)
        QCOMPARE(Sampler(p, 3).sample(logits, std::vector<int32_t>{2}), 2);

        // The repetition penalty first: 3 / 2 - 0.5 * 2 = 0.5 loses to 2.6; on a negative logit
        // -1 * 2 - 0.5 * 2 = -3 loses to -2.9, -1 * 2 - 0.4 * 2 = -2.8 wins (subtracting first
        // would give (-1 - 0.8) * 2 = -3.6).
        p = plain(0.0f);
        p.repetition_penalty = 2.0f;
        p.frequency_penalty = 0.5f;
        QCOMPARE(Sampler(p, 3).sample(logits, std::vector<int32_t>{0, 0}), 1);
        const std::vector<float> negative = {-1.0f, -2.9f, -3.1f};
        QCOMPARE(Sampler(p, 3).sample(negative, std::vector<int32_t>{0, 0}), 1);  // -3 < -2.9
        p.frequency_penalty = 0.4f;  // -1 * 2 - 0.8 = -2.8 > -2.9; subtracting first: -3.6
        QCOMPARE(Sampler(p, 3).sample(negative, std::vector<int32_t>{0, 0}), 0);
    }

    // OpenAI's logit_bias: added before anything else; -100 all but bans a token, a bias lifts
    // one from below any fixed top (so whole rows are needed), ids outside the vocabulary refused.
    void logit_bias_moves_chosen_tokens()
    {
        const std::vector<float> logits = {3.0f, 2.0f, 1.0f};
        SamplingParams p = plain(0.0f);
        p.logit_bias = {{0, -100.0f}};
        QCOMPARE(Sampler(p, 3).sample(logits, {}), 1);
        p.logit_bias = {{2, 2.5f}};
        QCOMPARE(Sampler(p, 3).sample(logits, {}), 2);
        p.logit_bias = {{2, 2.5f}, {2, -1.0f}};  // twice: both count
        QCOMPARE(Sampler(p, 3).sample(logits, {}), 0);
        p.repetition_penalty = 2.0f;  // the bias first: (1 + 4) / 2 = 2.5 < 3 (after: 1 / 2 + 4 = 4.5)
        p.logit_bias = {{2, 4.0f}};
        QCOMPARE(Sampler(p, 3).sample(logits, std::vector<int32_t>{2}), 0);
        p = plain(0.0f);
        p.logit_bias = {{1, 0.5f}};
        QCOMPARE(Sampler(p, 32000).top_logits_needed(), 0);
        p.logit_bias = {{3, 1.0f}};
        QVERIFY_THROWS_EXCEPTION(Error, Sampler(p, 3));
        p.logit_bias = {{-1, 1.0f}};
        QVERIFY_THROWS_EXCEPTION(Error, Sampler(p, 3));
        p.logit_bias = {{0, std::numeric_limits<float>::quiet_NaN()}};
        QVERIFY_THROWS_EXCEPTION(Error, Sampler(p, 3));
    }

    void top_logits_are_ordered_with_ties_to_the_lower_id()
    {
        const std::vector<float> logits = {1.0f, 3.0f, -0.0f, 3.0f, 0.0f, -INFINITY, INFINITY, 2.0f};
        const TopLogits top = select_top_logits(logits, 6);
        QCOMPARE(top.ids, (std::vector<int32_t>{6, 1, 3, 7, 0, 2}));
        QCOMPARE(top.values, (std::vector<float>{INFINITY, 3.0f, 3.0f, 2.0f, 1.0f, -0.0f}));
        QCOMPARE(select_top_logits(logits, 100).ids.size(), logits.size());
        QVERIFY(select_top_logits(logits, 0).ids.empty());
    }

    void padded_ids_are_never_drawn()
    {
        // An embedding padded past the tokenizer: ids 6 and 7 have the highest logits but no text.
        const std::vector<float> logits = {1.0f, 2.0f, 0.5f, 1.5f, 0.0f, -1.0f, 9.0f, 8.0f};
        SamplingParams greedy = plain(0.0f);
        QCOMPARE(Sampler(greedy, 8, 6).sample(logits, {}), 1);
        QCOMPARE(Sampler(greedy, 8, 6).top_logits_needed(), 3);  // the best drawable one, and the two padded
        QCOMPARE(Sampler(greedy, 8, 6).sample_top(select_top_logits(logits, 3)), 1);
        SamplingParams p = plain(1.0f);
        p.top_k = 3;
        Sampler whole(p, 8, 6), top(p, 8, 6);
        QCOMPARE(top.top_logits_needed(), 5);
        for (int i = 0; i < 300; ++i) {
            const int32_t a = whole.sample(logits, {}), b = top.sample_top(select_top_logits(logits, 5));
            QCOMPARE(a, b);
            QVERIFY(a < 6);
        }
        QVERIFY_THROWS_EXCEPTION(Error, top.sample_top(select_top_logits(logits, 4)));  // only 2 drawable ones
    }

    void nan_ranks_below_every_number()
    {
        // A model that overflows must not make the rankings undefined behaviour.
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const std::vector<float> values = {1.0f, nan, 3.0f, nan, -INFINITY, 2.0f};
        QCOMPARE(select_top_logits(values, 6).ids, (std::vector<int32_t>{2, 5, 0, 4, 1, 3}));
        QCOMPARE(select_top_k(values, 4), (std::vector<int>{0, 2, 4, 5}));
        std::vector<float> many(1000, nan);
        for (size_t i = 0; i < many.size(); i += 7)
            many[i] = static_cast<float>(i % 13);
        const std::vector<int> top = select_top_k(many, 100);
        QCOMPARE(top.size(), size_t(100));
        QVERIFY(std::none_of(top.begin(), top.end(), [&](int i) { return std::isnan(many[static_cast<size_t>(i)]); }));
    }

    // A NaN or infinite logit neither turns a draw into greedy nor greedy into token 0.
    void non_finite_logits_keep_the_draw_honest()
    {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        QCOMPARE(Sampler(plain(0.0f), 4).sample(std::vector<float>{nan, 1.0f, 3.0f, 2.0f}, {}), 2);
        SamplingParams penalised = plain(0.0f);
        penalised.repetition_penalty = 1.5f;  // greedy through sample()'s own argmax
        QCOMPARE(Sampler(penalised, 4).sample(std::vector<float>{nan, 1.0f, 3.0f, 2.0f}, {}), 2);
        // The finite ones are drawn as if the others were absent.
        QCOMPARE(draws(plain(1.0f), {nan, 1.0f, 1.2f, -INFINITY, nan}), (std::set<int32_t>{1, 2}));
        QCOMPARE(draws(plain(1.0f), {1.0f, INFINITY, 2.0f}), (std::set<int32_t>{1}));
        QCOMPARE(draws(plain(1.0f), {nan, -INFINITY, nan}).size(), size_t(1));
    }

    void bad_parameters_are_refused()
    {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const auto refused = [](SamplingParams p) {
            try {
                Sampler s(p, 4);
            } catch (const Error& e) {
                return QString::fromStdString(e.what());
            }
            return QString();
        };
        SamplingParams p = plain(nan);
        QVERIFY(refused(p).contains("temperature"));
        p = plain(INFINITY);
        QVERIFY(refused(p).contains("temperature"));
        p = plain(1.0f);
        p.top_p = nan;
        QVERIFY(refused(p).contains("top-p"));
        p = plain(1.0f);
        p.min_p = 1.5f;
        QVERIFY(refused(p).contains("min-p"));
        p = plain(1.0f);
        p.repetition_penalty = nan;
        QVERIFY(refused(p).contains("repeat-penalty"));
        p = plain(1.0f);
        p.top_k = -1;
        QVERIFY(refused(p).contains("top-k"));
        p = plain(1.0f);
        p.frequency_penalty = nan;
        QVERIFY(refused(p).contains("frequency penalty"));
        p = plain(1.0f);
        p.presence_penalty = -INFINITY;
        QVERIFY(refused(p).contains("presence penalty"));
        QVERIFY(refused(plain(0.7f)).isEmpty());
    }

    void how_many_top_logits_a_sampler_needs()
    {
        SamplingParams p = plain(0.0f);
        QCOMPARE(Sampler(p, 32000).top_logits_needed(), 1);
        p = plain(0.7f);
        QCOMPARE(Sampler(p, 32000).top_logits_needed(), 0);  // no top-k limit: every logit matters
        p.top_k = 40;
        QCOMPARE(Sampler(p, 32000).top_logits_needed(), 40);
        p.repetition_penalty = 1.3f;
        QCOMPARE(Sampler(p, 32000).top_logits_needed(), 0);  // a penalty can lift tokens from below
        p.repetition_window = 0;
        QCOMPARE(Sampler(p, 32000).top_logits_needed(), 40);
        p.repetition_penalty = 1.0f;
        p.repetition_window = 64;
        p.presence_penalty = 0.1f;
        QCOMPARE(Sampler(p, 32000).top_logits_needed(), 0);
        p.presence_penalty = 0.0f;
        p.frequency_penalty = -0.1f;
        QCOMPARE(Sampler(p, 32000).top_logits_needed(), 0);
        p.frequency_penalty = 0.0f;
        QCOMPARE(Sampler(p, 32000).top_logits_needed(), 40);
        p.top_k = 50000;  // more than the vocabulary: no limit, the whole row is drawn from
        QCOMPARE(Sampler(p, 32000).top_logits_needed(), 0);
        const std::vector<float> logits = {1, 2, 3, 2, 1, 0.5f};
        p.top_k = 6;
        QCOMPARE(draws(p, logits).size(), logits.size());
    }

    // For every kind of sampler that can use them, drawing from the highest logits repeats
    // the whole-row draws token for token (same seed, same random stream), also on rows full
    // of ties and when more logits than needed are given.
    void top_logits_draw_the_same_tokens_as_whole_rows()
    {
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> wide(-8.0f, 8.0f);
        std::uniform_int_distribution<int> few(0, 5);
        struct Case {
            float temperature;
            int top_k;
            float top_p, min_p;
        };
        const Case cases[] = {{0.0f, 0, 1.0f, 0.0f}, {1.0f, 1, 1.0f, 0.0f},  {0.8f, 40, 0.95f, 0.05f},
                              {1.5f, 3, 1.0f, 0.0f}, {0.6f, 100, 0.5f, 0.0f}, {1.0f, 7, 1.0f, 0.3f}};
        for (const Case& c : cases)
            for (bool ties : {false, true}) {
                SamplingParams p = plain(c.temperature);
                p.top_k = c.top_k;
                p.top_p = c.top_p;
                p.min_p = c.min_p;
                p.seed = 1234;
                Sampler whole(p, 500), top(p, 500);
                const int needed = top.top_logits_needed();
                QVERIFY(needed > 0);
                for (int step = 0; step < 200; ++step) {
                    std::vector<float> logits(500);
                    for (float& x : logits)
                        x = ties ? static_cast<float>(few(rng)) : wide(rng);
                    const int given = needed + step % 3;  // more than needed must not matter
                    QCOMPARE(top.sample_top(select_top_logits(logits, given)), whole.sample(logits, {}));
                }
            }
    }

    void too_few_top_logits_are_refused()
    {
        SamplingParams p = plain(1.0f);
        p.top_k = 5;
        Sampler s(p, 6);
        const std::vector<float> logits = {1, 2, 3, 4, 5, 6};
        QVERIFY_THROWS_EXCEPTION(Error, s.sample_top(select_top_logits(logits, 4)));
        Sampler unlimited(plain(1.0f), 6);
        QVERIFY_THROWS_EXCEPTION(Error, unlimited.sample_top(select_top_logits(logits, 6)));
    }
};

QTEST_APPLESS_MAIN(SamplerTest)
#include "test_sampler.moc"
