// Multi-turn conversations through ChatSession: extending the cache equals rebuilding it
// (full cache), compressed entries of earlier turns are never pruned again, edited history
// falls back to a rebuild, and an overflowing conversation stops or drops its oldest turns.
#include <QtTest>

#include <algorithm>

#include "chat/chat_format.h"
#include "chat/chat_session.h"
#include "eval/replay.h"
#include "generate/inference_session.h"
#include "shared_data.h"

using namespace pyramid;

namespace {

ChatRequest request_for(const Conversation& conversation, CompressionPolicyKind policy)
{
    ChatRequest r;
    r.conversation = conversation;
    r.compression.policy = policy;
    r.compression.pyramid.min_context_length = 8;
    r.sampling.temperature = 0.0f;
    r.max_new_tokens = 40;
    return r;
}

std::string words(int n)
{
    static const char* vocabulary[] = {"the", "cat", "sat", "on", "a", "big", "red", "mat", "and", "smiled"};
    std::string s;
    for (int i = 0; i < n; ++i)
        s += std::string(i ? " " : "") + vocabulary[(i * 7 + n) % 10];
    return s;
}

} // namespace

class ChatSessionTest : public QObject {
    Q_OBJECT
    std::shared_ptr<Model> model_;

private slots:
    void initTestCase()
    {
        PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
        model_ = Model::open(path, BackendPreference::Cpu);
    }

    void extend_with_full_cache_equals_rebuild()
    {
        ChatSession chat(model_);
        Conversation c{"Be brief.", {{ChatRole::User, "Tell me about the cat."}}};
        const std::atomic<bool> never{false};
        ChatResult first = chat.reply(request_for(c, CompressionPolicyKind::Full), {}, never);
        QCOMPARE(first.reason, FinishReason::MaxTokens);
        QVERIFY(!first.reused_cache);
        c.messages.push_back({ChatRole::Assistant, first.text});
        c.messages.push_back({ChatRole::User, "And the dog?"});

        StreamCallbacks none;
        ChatRequest second = request_for(c, CompressionPolicyKind::Full);
        second.max_new_tokens = 1;
        const ChatResult r = chat.reply(second, none, never);
        QVERIFY(r.reused_cache);
        // Only the new turn was fed: EOS, then the turn opened as the chat format opens one.
        const auto open = ChatTemplate(model_->tokenizer(), PromptFormat::Llama2Chat).conversation(Conversation{"", {{ChatRole::User, "And the dog?"}}});
        QCOMPARE(r.stats.prompt_tokens, 1 + static_cast<int>(open.size()));

        // The cached tokens, run from scratch, give the same next token and logits.
        const std::vector<int32_t> fed = chat.fed_tokens();
        InferenceSession from_scratch(model_->backend(), CompressionConfig::full_cache());
        const std::vector<int32_t> prompt(fed.begin(), fed.end() - 1);
        from_scratch.prefill(prompt);
        InferenceSession incremental(model_->backend(), CompressionConfig::full_cache());
        const size_t half = prompt.size() / 2;
        incremental.prefill(std::span(prompt).first(half));
        const auto a = incremental.extend(std::span(prompt).subspan(half));
        const auto b = InferenceSession(model_->backend(), CompressionConfig::full_cache()).prefill(prompt);
        QVERIFY(relative_error(a, b) < 1e-5);
        QCOMPARE(incremental.cache().lengths(), from_scratch.cache().lengths());
    }

    void earlier_turns_are_not_pruned_again()
    {
        CompressionConfig config;
        config.pyramid.min_context_length = 8;
        config.pyramid.prefill_decay_ratio = 0.5;
        InferenceSession session(model_->backend(), config);
        std::vector<int32_t> turn1(200), turn2(120);
        for (size_t i = 0; i < turn1.size(); ++i)
            turn1[i] = static_cast<int32_t>(3 + (i * 37) % 500);
        for (size_t i = 0; i < turn2.size(); ++i)
            turn2[i] = static_cast<int32_t>(3 + (i * 11) % 500);
        session.prefill(turn1);
        std::vector<std::vector<int32_t>> before;
        for (int l = 0; l < 5; ++l)
            before.emplace_back(session.cache().positions(l).begin(), session.cache().positions(l).end());
        session.extend(turn2);
        for (int l = 0; l < 5; ++l) {
            const auto pos = session.cache().positions(l);
            std::vector<int32_t> old(pos.begin(), pos.begin() + static_cast<ptrdiff_t>(before[l].size()));
            QCOMPARE(old, before[l]);  // every earlier entry survives, in order
            QVERIFY(pos.back() == 319);
            QVERIFY(std::is_sorted(pos.begin(), pos.end()));
        }
        // ... and the new turn itself was pruned layer by layer.
        QVERIFY(session.cache().length(4) - static_cast<int>(before[4].size()) < 120);
    }

    void edited_history_rebuilds()
    {
        ChatSession chat(model_);
        const std::atomic<bool> never{false};
        Conversation c{"", {{ChatRole::User, "Hello there."}}};
        const ChatResult first = chat.reply(request_for(c, CompressionPolicyKind::Pyramid), {}, never);
        c.messages.push_back({ChatRole::Assistant, first.text + " (edited)"});
        c.messages.push_back({ChatRole::User, "Go on."});
        const ChatResult second = chat.reply(request_for(c, CompressionPolicyKind::Pyramid), {}, never);
        QVERIFY(!second.reused_cache);
        QCOMPARE(second.stats.prompt_tokens, static_cast<int>(ChatTemplate(model_->tokenizer(), PromptFormat::Llama2Chat).conversation(c).size()));

        ChatRequest rebuild = request_for(c, CompressionPolicyKind::Pyramid);
        rebuild.context_mode = ContextMode::Rebuild;
        QVERIFY(!chat.reply(rebuild, {}, never).reused_cache);
    }

    // The cache is kept only when the system prompt gives the same tokens: "Be brief." and
    // "Be brief. " differ; empty and whitespace-only are both no system prompt.
    void a_changed_system_prompt_rebuilds()
    {
        ChatSession chat(model_);
        const std::atomic<bool> never{false};
        Conversation c{"Be brief.", {{ChatRole::User, "Hello there."}}};
        const ChatResult first = chat.reply(request_for(c, CompressionPolicyKind::Full), {}, never);
        c.messages.push_back({ChatRole::Assistant, first.text});
        c.messages.push_back({ChatRole::User, "Go on."});
        c.system_prompt = "Be brief. ";
        QVERIFY(!chat.reply(request_for(c, CompressionPolicyKind::Full), {}, never).reused_cache);

        Conversation quiet{"", {{ChatRole::User, "Hello there."}}};
        const ChatResult answer = chat.reply(request_for(quiet, CompressionPolicyKind::Full), {}, never);
        quiet.messages.push_back({ChatRole::Assistant, answer.text});
        quiet.messages.push_back({ChatRole::User, "Go on."});
        quiet.system_prompt = " \n";
        QVERIFY(chat.reply(request_for(quiet, CompressionPolicyKind::Full), {}, never).reused_cache);
    }

    void an_unanswered_question_is_asked_with_the_next()
    {
        // A question whose reply failed (or never came) stays in the conversation; the next
        // one is asked together with it, in the LLaMA-2-Chat format too.
        const std::atomic<bool> never{false};
        Conversation answered{"", {{ChatRole::User, "Hi."}}};
        ChatSession chat(model_);
        const ChatResult first = chat.reply(request_for(answered, CompressionPolicyKind::Pyramid), {}, never);
        Conversation c = answered;
        c.messages.push_back({ChatRole::Assistant, first.text});
        c.messages.push_back({ChatRole::User, "Where is the cat?"});
        c.messages.push_back({ChatRole::User, "And the dog?"});
        const ChatResult two = chat.reply(request_for(c, CompressionPolicyKind::Pyramid), {}, never);
        QVERIFY2(two.reason == FinishReason::MaxTokens, two.error.c_str());
        QVERIFY(two.reused_cache);  // the history before the two questions is still the cached one

        Conversation joined = c;
        joined.messages.pop_back();
        joined.messages.back().text = "Where is the cat?\n\nAnd the dog?";
        ChatSession fresh(model_);
        (void)fresh.reply(request_for(answered, CompressionPolicyKind::Pyramid), {}, never);
        QCOMPARE(fresh.reply(request_for(joined, CompressionPolicyKind::Pyramid), {}, never).text, two.text);
        QCOMPARE(fresh.fed_tokens(), chat.fed_tokens());
    }

    void overflow_stops_or_drops_oldest_turns()
    {
        const std::atomic<bool> never{false};
        Conversation c;
        for (int turn = 0; turn < 4; ++turn) {
            c.messages.push_back({ChatRole::User, words(300)});
            c.messages.push_back({ChatRole::Assistant, words(250)});
        }
        c.messages.push_back({ChatRole::User, words(100)});
        const int context = model_->config().context_length;
        QVERIFY(static_cast<int>(ChatTemplate(model_->tokenizer(), PromptFormat::Llama2Chat).conversation(c).size()) > context);

        ChatSession chat(model_);
        ChatRequest stop = request_for(c, CompressionPolicyKind::Pyramid);
        const ChatResult refused = chat.reply(stop, {}, never);
        QCOMPARE(refused.reason, FinishReason::ContextFull);
        QVERIFY(QString::fromStdString(refused.error).contains("context holds"));
        // The numbers come back as data too, for the app to word: the whole conversation's prompt.
        QVERIFY(refused.shortfall.has_value());
        QCOMPARE(refused.shortfall->prompt_tokens, static_cast<int>(ChatTemplate(model_->tokenizer(), PromptFormat::Llama2Chat).conversation(c).size()));
        QCOMPARE(refused.shortfall->reply_room, stop.max_new_tokens);
        QCOMPARE(refused.shortfall->context_length, context);
        QVERIFY(!refused.shortfall->message_too_long);

        ChatRequest drop = stop;
        drop.overflow = OverflowPolicy::DropOldestTurns;
        const ChatResult dropped = chat.reply(drop, {}, never);
        QCOMPARE(dropped.reason, FinishReason::MaxTokens);
        QVERIFY(dropped.dropped_turns >= 1);
        QCOMPARE(dropped.notice, (ContextNotice{ContextNotice::Kind::TurnsDropped, dropped.dropped_turns}));
        QVERIFY(dropped.stats.prompt_tokens + drop.max_new_tokens <= context);

        // The next turn extends the shortened conversation instead of rebuilding again.
        c.messages.push_back({ChatRole::Assistant, dropped.text});
        c.messages.push_back({ChatRole::User, "More."});
        drop.conversation = c;
        const ChatResult next = chat.reply(drop, {}, never);
        QVERIFY(next.reused_cache);
        QCOMPARE(next.dropped_turns, dropped.dropped_turns);
        QVERIFY(!next.notice);  // said once, when the turns were dropped
    }

    // The command line and the log word a notice in English, singular and plural.
    void a_notice_is_worded_for_the_log()
    {
        QCOMPARE(describe({}), std::string());
        QCOMPARE(describe({ContextNotice::Kind::TurnsDropped, 1}),
                 std::string("the conversation outgrew the model's context: the oldest exchange was left out of the "
                             "prompt"));
        QCOMPARE(describe({ContextNotice::Kind::TurnsDropped, 3}),
                 std::string("the conversation outgrew the model's context: the oldest 3 exchanges were left out of "
                             "the prompt"));
        QCOMPARE(describe({ContextNotice::Kind::PositionsRenumbered, 64}),
                 std::string("the context was full: the oldest 64 positions were dropped and the rest renumbered"));
    }

    // The fewest oldest exchanges are dropped, and what is left is encoded exactly as that
    // shorter conversation would be from scratch (the system prompt moves to the new first turn).
    void dropping_turns_keeps_the_most_and_encodes_them_exactly()
    {
        const std::atomic<bool> never{false};
        const Tokenizer& tok = model_->tokenizer();
        const int context = model_->config().context_length;
        for (const PromptFormat format : {PromptFormat::Llama2Chat, PromptFormat::Raw}) {
            Conversation c{"Be brief.\nBe kind.", {}};
            for (int turn = 0; turn < 8; ++turn) {
                c.messages.push_back({ChatRole::User, words(150 + 9 * turn)});
                c.messages.push_back({ChatRole::Assistant, words(120 + 5 * turn)});
            }
            c.messages.push_back({ChatRole::User, words(30)});
            const auto prompt_without = [&](int dropped) {
                Conversation kept = c;
                kept.messages.erase(kept.messages.begin(), kept.messages.begin() + 2 * dropped);
                if (format == PromptFormat::Llama2Chat)
                    return ChatTemplate(tok, PromptFormat::Llama2Chat).conversation(kept);
                std::vector<int32_t> tokens = format_raw(tok, "");
                for (const ChatMessage& m : kept.messages) {
                    const auto piece = tok.encode(m.text);
                    tokens.insert(tokens.end(), piece.begin(), piece.end());
                }
                return tokens;
            };
            ChatRequest r = request_for(c, CompressionPolicyKind::Pyramid);
            r.format = format;
            r.overflow = OverflowPolicy::DropOldestTurns;
            ChatSession chat(model_);
            const ChatResult result = chat.reply(r, {}, never);
            QVERIFY2(result.reason == FinishReason::MaxTokens, result.error.c_str());
            QVERIFY(result.dropped_turns >= 2);
            const auto expected = prompt_without(result.dropped_turns);
            const auto& fed = chat.fed_tokens();
            QVERIFY(fed.size() > expected.size());
            QVERIFY(std::equal(expected.begin(), expected.end(), fed.begin()));
            QVERIFY(static_cast<int>(prompt_without(result.dropped_turns - 1).size()) + r.max_new_tokens > context);
        }
    }

    // A last message that cannot fit even alone is said so under every policy: advice to
    // drop turns could not help it. An earlier turn too long is another matter.
    void a_message_too_long_on_its_own_is_said_so()
    {
        const std::atomic<bool> never{false};
        const int context = model_->config().context_length;
        const Conversation too_long{"", {{ChatRole::User, "Hi."}, {ChatRole::Assistant, "Hello."},
                                         {ChatRole::User, words(2 * context)}}};
        for (const OverflowPolicy policy :
             {OverflowPolicy::Stop, OverflowPolicy::DropOldestTurns, OverflowPolicy::Reencode}) {
            ChatRequest r = request_for(too_long, CompressionPolicyKind::Pyramid);
            r.overflow = policy;
            ChatSession chat(model_);
            const ChatResult result = chat.reply(r, {}, never);
            QCOMPARE(result.reason, FinishReason::ContextFull);
            QVERIFY(result.shortfall && result.shortfall->message_too_long);
            QVERIFY(result.shortfall->prompt_tokens + result.shortfall->reply_room > context);
            QVERIFY2(result.error.ends_with("the last message alone is too long"), result.error.c_str());
        }
        const Conversation long_before{"", {{ChatRole::User, words(2 * context)}, {ChatRole::Assistant, "Ok."},
                                            {ChatRole::User, "Hi."}}};
        ChatSession chat(model_);
        const ChatResult result = chat.reply(request_for(long_before, CompressionPolicyKind::Pyramid), {}, never);
        QCOMPARE(result.reason, FinishReason::ContextFull);
        QVERIFY(result.shortfall && !result.shortfall->message_too_long);
        QVERIFY2(result.error.ends_with("allow dropping old turns"), result.error.c_str());
    }

    void a_turn_too_long_to_make_room_for_drops_turns_instead()
    {
        // Re-encoding keeps the sinks and at least one recent position; a turn needing more
        // room than that is answered by dropping the oldest turns, not by an error.
        const std::atomic<bool> never{false};
        const int context = model_->config().context_length;
        ChatRequest r = request_for(Conversation{"", {{ChatRole::User, "Hi."}}}, CompressionPolicyKind::Pyramid);
        r.overflow = OverflowPolicy::Reencode;
        ChatSession chat(model_);
        const ChatResult first = chat.reply(r, {}, never);
        const int sinks = r.compression.pyramid.sink_tokens;
        std::string longest;
        for (int n = 1; n < 4 * context && longest.empty(); ++n) {
            const int turn = 1 + static_cast<int>(
                ChatTemplate(model_->tokenizer(), PromptFormat::Llama2Chat).conversation(Conversation{"", {{ChatRole::User, words(n)}}}).size());
            const int needed = turn + r.max_new_tokens;
            if (needed >= context - sinks && needed < context)
                longest = words(n);
        }
        QVERIFY(!longest.empty());
        r.conversation.messages.push_back({ChatRole::Assistant, first.text});
        r.conversation.messages.push_back({ChatRole::User, longest});
        const ChatResult result = chat.reply(r, {}, never);
        QVERIFY2(result.reason == FinishReason::MaxTokens, result.error.c_str());
        QCOMPARE(result.dropped_turns, 1);
    }

    void make_room_renumbers_positions()
    {
        InferenceSession session(model_->backend(), CompressionConfig{});
        std::vector<int32_t> prompt(300);
        for (size_t i = 0; i < prompt.size(); ++i)
            prompt[i] = static_cast<int32_t>(3 + (i * 13) % 500);
        session.prefill(prompt);
        const int context = session.context_length();
        const int freed = session.make_room(context - 150);  // keep 4 sinks + 146 recent positions
        QCOMPARE(session.next_position(), 300 - freed);
        for (int l = 0; l < 5; ++l) {
            const auto pos = session.cache().positions(l);
            QVERIFY(std::is_sorted(pos.begin(), pos.end()));
            QCOMPARE(pos.front(), 0);
            QVERIFY(pos.back() < session.next_position());
        }
        QCOMPARE(session.cache().length(0), 150);  // layer 0 keeps every position it had
        const auto logits = session.decode(42);
        QVERIFY(std::all_of(logits.begin(), logits.end(), [](float v) { return std::isfinite(v); }));
        QCOMPARE(session.cache().positions(0).back(), session.next_position() - 1);
    }

    void reencode_keeps_going_past_the_context()
    {
        const std::atomic<bool> never{false};
        ChatSession chat(model_);
        Conversation c;
        ChatRequest r = request_for(c, CompressionPolicyKind::Pyramid);
        r.overflow = OverflowPolicy::Reencode;
        r.max_new_tokens = 100;
        const int context = model_->config().context_length;
        bool renumbered = false;
        for (int turn = 0; turn < 6 && !renumbered; ++turn) {
            c.messages.push_back({ChatRole::User, words(380)});
            r.conversation = c;
            const ChatResult result = chat.reply(r, {}, never);
            QVERIFY2(result.reason != FinishReason::ContextFull && result.reason != FinishReason::Error,
                     result.error.c_str());
            QCOMPARE(result.reused_cache, turn > 0);
            renumbered = result.notice.kind == ContextNotice::Kind::PositionsRenumbered;
            if (renumbered)
                QVERIFY(result.notice.count > 0);
            c.messages.push_back({ChatRole::Assistant, result.text});
        }
        QVERIFY(renumbered);
        QVERIFY(static_cast<int>(chat.fed_tokens().size()) > context);  // more than fits, yet it went on
    }
};

QTEST_APPLESS_MAIN(ChatSessionTest)
#include "test_chat_session.moc"
