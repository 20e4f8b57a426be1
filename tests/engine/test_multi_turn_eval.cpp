// The multi-turn measurement: with a full cache, extending and rebuilding are the same
// computation, so NLLs match and argmax tokens agree everywhere; with PyramidInfer, extend
// holds no more KV than a rebuild of the same conversation would let grow unpruned.
#include <QtTest>

#include <fstream>

#include "eval/multi_turn_eval.h"
#include "model/model.h"
#include "shared_data.h"

using namespace pyramid;

namespace {

Transcript story_transcript(const Tokenizer& tok, const std::filesystem::path& text_path)
{
    std::ifstream in(text_path);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    std::vector<int32_t> ids = tok.encode(text.substr(0, 4000));
    Transcript t;
    size_t at = 0;
    for (int turn = 0; turn < 3; ++turn) {
        std::vector<int32_t> prompt(ids.begin() + at, ids.begin() + at + 100);
        if (turn == 0)
            prompt.insert(prompt.begin(), tok.bos_id());
        at += 100;
        t.prompts.push_back(prompt);
        t.replies.emplace_back(ids.begin() + at, ids.begin() + at + 30);
        at += 30;
    }
    return t;
}

} // namespace

class MultiTurnEvalTest : public QObject {
    Q_OBJECT
private slots:
    void full_cache_extend_equals_rebuild()
    {
        PYRAMID_REQUIRE_SHARED(model_path, "models/stories260K.gguf");
        PYRAMID_REQUIRE_SHARED(text_path, "data/tinystories_val_prefix.txt");
        auto model = Model::open(model_path, BackendPreference::Cpu);
        const Transcript t = story_transcript(model->tokenizer(), text_path);
        const auto full = measure_multi_turn(model->backend(), CompressionConfig::full_cache(), t);
        QCOMPARE(full.size(), size_t(3));
        for (const TurnMeasurement& m : full) {
            QVERIFY(std::abs(m.extend_nll - m.rebuild_nll) < 1e-4);
            QCOMPARE(m.argmax_agreement, 1.0);
            QCOMPARE(m.extend_kv_bytes, m.rebuild_kv_bytes);
            QVERIFY(m.extend_nll > 0.1 && m.extend_nll < 5.0);  // a real model on in-distribution text
        }
        QCOMPARE(full[2].conversation_tokens, 101 + 30 + 100 + 30 + 100);

        CompressionConfig pyramid;
        pyramid.pyramid.min_context_length = 8;
        const auto compressed = measure_multi_turn(model->backend(), pyramid, t);
        for (const TurnMeasurement& m : compressed) {
            QVERIFY(m.extend_kv_bytes < m.full_kv_bytes);
            QVERIFY(std::isfinite(m.extend_nll) && std::isfinite(m.rebuild_nll));
            QVERIFY(m.argmax_agreement > 0.5);
        }
    }

    void nll_of_a_sure_token_is_small()
    {
        QVERIFY(token_nll({0.0f, 20.0f, 0.0f}, 1) < 1e-8);
        QVERIFY(std::abs(token_nll({0.0f, 0.0f}, 0) - std::log(2.0)) < 1e-12);
    }
};

QTEST_APPLESS_MAIN(MultiTurnEvalTest)
#include "test_multi_turn_eval.moc"
