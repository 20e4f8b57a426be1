// The default chat model, SmolLM2-135M-Instruct (30 layers, GQA 9/3, byte-level BPE, ChatML,
// Q4_1 weights, tied output), through the whole engine on the CPU: its file read as llama.cpp
// reads it, a sensible greedy answer through the format its chat template names, replies
// that end at its end-of-turn token, and a second turn that extends the cache to the same
// tokens and reply as a rebuild. Skips when setup has not fetched the model.
#include <QtTest>

#include "chat/chat_format.h"
#include "chat/chat_session.h"
#include "model/model.h"
#include "shared_data.h"

using namespace pyramid;

namespace {

ChatRequest greedy(const Conversation& conversation, ContextMode mode)
{
    ChatRequest r;
    r.conversation = conversation;
    r.format = PromptFormat::ChatML;
    r.compression.policy = CompressionPolicyKind::Full;
    r.sampling.temperature = 0.0f;
    r.max_new_tokens = 48;
    r.context_mode = mode;
    return r;
}

} // namespace

class RealChatModelTest : public QObject {
    Q_OBJECT
    std::shared_ptr<Model> model_;

private slots:
    void initTestCase()
    {
        PYRAMID_REQUIRE_DEFAULT_MODEL(path);
        model_ = Model::open(path, BackendPreference::Cpu);
    }

    void fileReadsAsLlamaCppReadsIt()
    {
        const ModelConfig& c = model_->config();
        QCOMPARE(c.n_layers, 30);
        QCOMPARE(c.n_heads, 9);
        QCOMPARE(c.n_kv_heads, 3);
        QCOMPARE(c.dim, 576);
        QCOMPARE(c.ffn_dim, 1536);
        QCOMPARE(c.n_vocab, 49152);
        QCOMPARE(c.context_length, 8192);
        QCOMPARE(c.rope_theta, 100000.0f);
        QVERIFY(c.tied_output);
        QCOMPARE(detect_chat_template(model_->files().chat_template), std::optional(PromptFormat::ChatML));
        QCOMPARE(model_->tokenizer().description(), std::string("byte-level BPE (pre-tokenizer smollm)"));
    }

    void answersAQuestionAndStopsAtItsTurnsEnd()
    {
        ChatSession chat(model_);
        const std::atomic<bool> never{false};
        const ChatResult r =
            chat.reply(greedy({"", {{ChatRole::User, "What is the capital of France?"}}}, ContextMode::Extend), {}, never);
        QCOMPARE(r.reason, FinishReason::EndOfSequence);  // <|im_end|>, not the token limit
        QVERIFY2(r.text.find("Paris") != std::string::npos, r.text.c_str());
        QVERIFY(r.text.find("<|im_end|>") == std::string::npos);
    }

    void secondTurnExtendsAsItRebuilds()
    {
        const std::atomic<bool> never{false};
        Conversation c{"", {{ChatRole::User, "Name a fruit that is yellow."}}};
        ChatSession extending(model_);
        const ChatResult first = extending.reply(greedy(c, ContextMode::Extend), {}, never);
        QVERIFY(!first.text.empty());
        c.messages.push_back({ChatRole::Assistant, first.text});
        c.messages.push_back({ChatRole::User, "And a red one?"});

        const ChatResult extended = extending.reply(greedy(c, ContextMode::Extend), {}, never);
        QVERIFY(extended.reused_cache);
        ChatSession rebuilding(model_);
        const ChatResult rebuilt = rebuilding.reply(greedy(c, ContextMode::Rebuild), {}, never);
        QVERIFY(!rebuilt.reused_cache);
        // The cache holds exactly the tokens a rebuild prefills (the first reply as generated
        // tokenizes back to itself), so the greedy replies agree.
        const std::vector<int32_t> fed = extending.fed_tokens();
        const std::vector<int32_t> prompt = ChatTemplate(model_->tokenizer(), PromptFormat::ChatML).conversation(c);
        QVERIFY(fed.size() > prompt.size());
        QVERIFY(std::equal(prompt.begin(), prompt.end(), fed.begin()));
        QCOMPARE(extended.text, rebuilt.text);
    }
};

QTEST_GUILESS_MAIN(RealChatModelTest)
#include "test_real_chat_model.moc"
