// Log-probabilities as OpenAI's API reports them: the softmax of a whole row of raw logits,
// against a float64 reference written here; rows with -inf, NaN and +inf logits; and through
// the batch scheduler, where asking for them changes no token and gives each drawn token the
// log-probability its own run's logits give it.
#include <QtTest>

#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "generate/batch_scheduler.h"
#include "generate/inference_session.h"
#include "generate/token_logprobs.h"
#include "model/model.h"
#include "shared_data.h"

using namespace pyramid;

namespace {

// log softmax of one entry, in long double, the plain way.
double reference(const std::vector<float>& row, int32_t id)
{
    long double sum = 0;
    for (const float l : row)
        sum += std::exp(static_cast<long double>(l));
    return static_cast<double>(static_cast<long double>(row[static_cast<size_t>(id)]) - std::log(sum));
}

} // namespace

class TokenLogprobsTest : public QObject {
    Q_OBJECT
private slots:
    void a_row_s_log_softmax()
    {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        std::normal_distribution<float> logit(0.0f, 4.0f);
        std::vector<float> row(3000);
        for (float& l : row)
            l = logit(rng) + 30.0f;  // offset: exp(l) alone would overflow float, not the reference
        row[17] = row[18];           // a tie
        const TokenLogprobs out = token_logprobs(row, 5, 20);
        QVERIFY(std::abs(out.drawn.logprob - reference(row, 5)) < 1e-5);
        QCOMPARE(out.drawn.id, 5);
        QCOMPARE(out.likeliest.size(), size_t(20));
        const TopLogits top = select_top_logits(row, 20);
        double total = 0;
        for (size_t i = 0; i < out.likeliest.size(); ++i) {
            QCOMPARE(out.likeliest[i].id, top.ids[i]);
            QVERIFY(std::abs(out.likeliest[i].logprob - reference(row, top.ids[i])) < 1e-5);
            total += std::exp(out.likeliest[i].logprob);
        }
        QVERIFY(total < 1.0);
        double all = 0;
        for (const TokenLogprob& t : token_logprobs(row, 0, static_cast<int>(row.size())).likeliest)
            all += std::exp(static_cast<double>(t.logprob));
        QVERIFY(std::abs(all - 1.0) < 1e-4);
        QVERIFY(token_logprobs(row, 5, 0).likeliest.empty());
    }

    void tokens_without_a_chance_and_certain_ones()
    {
        const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
        const std::vector<float> row = {0.0f, -inf, nan, 0.0f};
        const TokenLogprobs out = token_logprobs(row, 1, 4);
        QCOMPARE(out.drawn.logprob, -inf);
        QVERIFY(std::abs(out.likeliest[0].logprob - std::log(0.5f)) < 1e-6);
        QCOMPARE(out.likeliest[0].id, 0);
        QCOMPARE(out.likeliest[1].id, 3);
        QCOMPARE(out.likeliest[2].logprob, -inf);
        QCOMPARE(out.likeliest[3].logprob, -inf);  // NaN: no chance, ranked last
        const std::vector<float> certain = {3.0f, inf, 1.0f};
        QCOMPARE(token_logprobs(certain, 1, 0).drawn.logprob, 0.0f);
        QCOMPARE(token_logprobs(certain, 0, 0).drawn.logprob, -inf);
        QCOMPARE(token_logprobs(std::vector<float>{-inf, -inf}, 0, 0).drawn.logprob, -inf);
    }

    // Requests asking for log-probabilities (greedy, which alone would fetch only the top
    // logit, and sampled) run beside requests that do not: every token is the one drawn without
    // them, and its log-probability is the softmax of its own run's logits.
    void the_scheduler_reports_each_drawn_token_s()
    {
        PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
        const auto model = Model::open(path, BackendPreference::Cpu);
        Backend& backend = model->backend();
        std::mt19937 rng(QRandomGenerator::global()->generate());
        std::vector<BatchRequest> requests;
        for (int i = 0; i < 6; ++i) {
            BatchRequest r;
            r.prompt = {1};
            for (int n = std::uniform_int_distribution<int>(3, 40)(rng); n > 0; --n)
                r.prompt.push_back(std::uniform_int_distribution<int32_t>(3, 511)(rng));
            r.max_new_tokens = 12;
            r.sampling.seed = 7 + static_cast<uint64_t>(i);
            r.sampling.temperature = i % 2 == 0 ? 0.0f : 0.9f;
            if (i < 4)
                r.likeliest_logprobs = i;  // 0 to 3 likeliest
            requests.push_back(r);
        }
        BatchScheduler scheduler(backend, {6, 0, 8192});
        std::vector<int> ids;
        for (const BatchRequest& r : requests)
            ids.push_back(scheduler.submit(r));
        std::map<int, std::vector<BatchEvent>> events;
        while (!scheduler.idle())
            for (const BatchEvent& e : scheduler.step())
                if (e.token)
                    events[e.id].push_back(e);

        for (size_t i = 0; i < requests.size(); ++i) {
            const BatchRequest& r = requests[i];
            InferenceSession alone(backend, r.compression);
            Sampler sampler(r.sampling, backend.config().n_vocab);
            std::vector<int32_t> history = r.prompt;
            std::vector<float> logits = alone.prefill(r.prompt);
            const std::vector<BatchEvent>& got = events.at(ids[i]);
            QCOMPARE(got.size(), size_t(r.max_new_tokens));
            for (const BatchEvent& e : got) {
                const int32_t token = sampler.sample(logits, history);
                QCOMPARE(*e.token, token);
                QCOMPARE(e.logprobs.has_value(), r.likeliest_logprobs.has_value());
                if (e.logprobs) {
                    QCOMPARE(e.logprobs->drawn.id, token);
                    QVERIFY(std::abs(e.logprobs->drawn.logprob - reference(logits, token)) < 1e-4);
                    QCOMPARE(e.logprobs->likeliest.size(), size_t(*r.likeliest_logprobs));
                    if (r.sampling.temperature == 0 && !e.logprobs->likeliest.empty())
                        QCOMPARE(e.logprobs->likeliest[0].id, token);
                }
                history.push_back(token);
                logits = alone.decode(token);
            }
        }
        BatchRequest too_many = requests[0];
        too_many.likeliest_logprobs = backend.config().n_vocab + 1;
        QVERIFY_THROWS_EXCEPTION(Error, scheduler.submit(too_many));
    }
};

QTEST_APPLESS_MAIN(TokenLogprobsTest)
#include "test_token_logprobs.moc"
