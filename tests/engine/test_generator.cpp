// The generation loop on stories260K: with a sampler that only needs the highest logits
// (greedy, top-k) generate() asks the backend for those alone, and still produces exactly the
// tokens a loop over whole logit rows produces with the same seed; a repetition penalty keeps
// the whole rows. Also: the prompt is refused as the session refuses it, and a reply that
// extends the cache continues where the cache ends.
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <memory>

#include "backend/forwarding_backend.h"
#include "generate/generator.h"
#include "generate/inference_session.h"
#include "generate/sampler.h"
#include "model/model.h"
#include "shared_data.h"
#include "util/error.h"

using namespace pyramid;

namespace {

// Counts how the logits leave a real backend.
class CountingBackend final : public ForwardingBackend {
public:
    using ForwardingBackend::ForwardingBackend;

    int whole_row_calls = 0;
    int top_calls = 0;

    std::vector<float> logits_rows(const HiddenStates& hidden, std::span<const int> rows) override
    {
        ++whole_row_calls;
        return inner_.logits_rows(hidden, rows);
    }
    std::vector<TopLogits> top_logits_rows(const HiddenStates& hidden, std::span<const int> rows, int k) override
    {
        ++top_calls;
        return inner_.top_logits_rows(hidden, rows, k);
    }
};

SamplingParams sampling(float temperature, int top_k, float repetition_penalty)
{
    SamplingParams p;
    p.temperature = temperature;
    p.top_k = top_k;
    p.repetition_penalty = repetition_penalty;
    p.seed = 1234567;
    return p;
}

// What generate() must reproduce: prefill, then sample from whole rows and decode, token by
// token, with a sampler of the same seed.
std::vector<int32_t> whole_row_loop(Backend& backend, std::span<const int32_t> prompt, const SamplingParams& params,
                                    int max_new_tokens)
{
    InferenceSession session(backend, CompressionConfig{});
    Sampler sampler(params, backend.config().n_vocab);
    std::vector<int32_t> history(prompt.begin(), prompt.end()), generated;
    std::vector<float> logits = session.prefill(prompt);
    for (int i = 0; i < max_new_tokens; ++i) {
        const int32_t token = sampler.sample(logits, history);
        history.push_back(token);
        generated.push_back(token);
        logits = session.decode(token);
    }
    return generated;
}

std::vector<int32_t> with_bos(const Tokenizer& tokenizer, std::string_view text)
{
    std::vector<int32_t> tokens{tokenizer.bos_id()};
    const std::vector<int32_t> body = tokenizer.encode(text);
    tokens.insert(tokens.end(), body.begin(), body.end());
    return tokens;
}

} // namespace

class GeneratorTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
        model_ = Model::open(path, BackendPreference::Cpu);
    }

    void draws_from_the_logits_the_sampler_needs_data()
    {
        QTest::addColumn<float>("temperature");
        QTest::addColumn<int>("top_k");
        QTest::addColumn<float>("penalty");
        QTest::addColumn<bool>("top_only");
        QTest::newRow("greedy") << 0.0f << 40 << 1.0f << true;
        QTest::newRow("top-k 40") << 0.8f << 40 << 1.0f << true;
        QTest::newRow("top-k 3, hot") << 1.5f << 3 << 1.0f << true;
        QTest::newRow("no top-k limit") << 0.8f << 0 << 1.0f << false;
        QTest::newRow("repetition penalty") << 0.8f << 40 << 1.3f << false;
    }

    void draws_from_the_logits_the_sampler_needs()
    {
        QFETCH(float, temperature);
        QFETCH(int, top_k);
        QFETCH(float, penalty);
        QFETCH(bool, top_only);
        constexpr int kTokens = 60;
        const std::vector<int32_t> prompt = with_bos(model_->tokenizer(), "Once upon a time, a little fox");
        GenerateOptions options;
        options.max_new_tokens = kTokens;
        options.sampling = sampling(temperature, top_k, penalty);
        options.stop_at_eos = false;

        CountingBackend backend(model_->backend());
        InferenceSession session(backend, CompressionConfig{});
        const std::atomic<bool> never{false};
        const GenerateResult result = generate(session, model_->tokenizer(), prompt, options, {}, never);

        QCOMPARE(result.reason, FinishReason::MaxTokens);
        QCOMPARE(result.tokens, whole_row_loop(model_->backend(), prompt, options.sampling, kTokens));
        // One step for the prompt and one after each token.
        QCOMPARE(top_only ? backend.top_calls : backend.whole_row_calls, kTokens + 1);
        QCOMPARE(top_only ? backend.whole_row_calls : backend.top_calls, 0);
        // The cache's blocks, as the backend's allocator counts them (a CPU backend: blocks of 16).
        const KvBlockUse blocks = backend.kv_blocks();
        QCOMPARE(blocks.block_entries, 16);
        size_t block_bytes = 0;
        for (int length : result.stats.layer_kv_lengths)
            block_bytes += size_t((length + 15) / 16) * blocks.block_bytes;
        QCOMPARE(result.stats.kv_block_bytes, block_bytes);
        QVERIFY(result.stats.kv_block_bytes >= result.stats.kv_bytes);
    }

    // stories260K separates its stories with BOS: a reply ends there, as it does at EOS.
    void a_reply_ends_where_the_model_starts_a_new_text()
    {
        const Tokenizer& tok = model_->tokenizer();
        const std::vector<int32_t> prompt = with_bos(tok, "Once upon a time, a little fox");
        const std::atomic<bool> never{false};
        GenerateOptions options;
        options.max_new_tokens = 300;
        options.stop_at_eos = false;
        GenerateResult unstopped;
        size_t bos_at = 0;
        for (uint64_t seed = 1; seed <= 40 && bos_at == 0; ++seed) {
            options.sampling = sampling(0.8f, 40, 1.0f);
            options.sampling.seed = seed;
            InferenceSession session(model_->backend(), CompressionConfig{});
            unstopped = generate(session, tok, prompt, options, {}, never);
            const auto bos = std::find(unstopped.tokens.begin(), unstopped.tokens.end(), tok.bos_id());
            if (bos != unstopped.tokens.end() && bos != unstopped.tokens.begin())
                bos_at = static_cast<size_t>(bos - unstopped.tokens.begin());
        }
        QVERIFY2(bos_at > 0, "no sampled story reached its end: nothing to check");
        options.stop_at_eos = true;
        InferenceSession session(model_->backend(), CompressionConfig{});
        const GenerateResult stopped = generate(session, tok, prompt, options, {}, never);
        QCOMPARE(stopped.reason, FinishReason::EndOfSequence);
        QCOMPARE(stopped.tokens, std::vector<int32_t>(unstopped.tokens.begin(), unstopped.tokens.begin() + bos_at));
    }

    void extending_the_cache_continues_after_it()
    {
        const std::vector<int32_t> first = with_bos(model_->tokenizer(), "The cat sat");
        const std::vector<int32_t> second = model_->tokenizer().encode(" on the mat");
        // With a repetition penalty too: the tokens fed before count as they would in the prompt.
        for (const float penalty : {1.0f, 3.0f}) {
            GenerateOptions options;
            options.max_new_tokens = 8;
            options.sampling = sampling(0.0f, 40, penalty);
            options.stop_at_eos = false;
            const std::atomic<bool> never{false};

            InferenceSession session(model_->backend(), CompressionConfig::full_cache());
            const GenerateResult a = generate(session, model_->tokenizer(), first, options, {}, never);
            std::vector<int32_t> all = first;
            all.insert(all.end(), a.tokens.begin(), a.tokens.end());
            options.extend_cache = true;
            options.earlier_tokens = all;
            const GenerateResult b = generate(session, model_->tokenizer(), second, options, {}, never);

            all.insert(all.end(), second.begin(), second.end());
            options.extend_cache = false;
            options.earlier_tokens = {};
            InferenceSession fresh(model_->backend(), CompressionConfig::full_cache());
            const GenerateResult c = generate(fresh, model_->tokenizer(), all, options, {}, never);
            QCOMPARE(b.tokens, c.tokens);
            QCOMPARE(session.next_position(), fresh.next_position());
        }
    }

    void refuses_prompts_the_session_refuses()
    {
        InferenceSession session(model_->backend(), CompressionConfig{});
        const std::atomic<bool> never{false};
        GenerateOptions options;
        QVERIFY_THROWS_EXCEPTION(Error, generate(session, model_->tokenizer(), {}, options, {}, never));
        const std::vector<int32_t> too_long(static_cast<size_t>(session.context_length()) + 1, 1);
        QVERIFY_THROWS_EXCEPTION(Error, generate(session, model_->tokenizer(), too_long, options, {}, never));
    }

    void cancelled_before_the_prompt_ends_empty()
    {
        InferenceSession session(model_->backend(), CompressionConfig{});
        const std::atomic<bool> cancelled{true};
        GenerateOptions options;
        const GenerateResult r =
            generate(session, model_->tokenizer(), with_bos(model_->tokenizer(), "Hello"), options, {}, cancelled);
        QCOMPARE(r.reason, FinishReason::Cancelled);
        QVERIFY(r.tokens.empty());
        QCOMPARE(session.next_position(), 0);
    }

private:
    std::shared_ptr<Model> model_;
};

QTEST_APPLESS_MAIN(GeneratorTest)
#include "test_generator.moc"
