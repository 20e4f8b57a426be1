// Sampling rules: greedy, seeded reproducibility, and each filter restricting the draw.
#include <QtTest>

#include <set>

#include "generate/sampler.h"

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
    Sampler s(p);
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
        Sampler s(plain(0.0f));
        QCOMPARE(s.sample(std::vector<float>{0.1f, 3.0f, -2.0f, 3.0f}, {}), 1);  // ties: lower id
    }

    void seeded_draws_repeat()
    {
        const std::vector<float> logits = {1, 2, 3, 2, 1, 0.5f};
        Sampler a(plain(1.0f)), b(plain(1.0f));
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
        Sampler s(p);
        const std::vector<float> logits = {3.0f, 2.0f, -1.0f};
        QCOMPARE(s.sample(logits, std::vector<int32_t>{0}), 1);  // 3/2 < 2
        QCOMPARE(s.sample(logits, {}), 0);
    }
};

QTEST_APPLESS_MAIN(SamplerTest)
#include "test_sampler.moc"
