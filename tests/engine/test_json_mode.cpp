// JSON mode: the constraint's mask allows exactly the tokens after which the reply can still be
// a JSON object (its fast path for plain string text against trying every token, on a
// vocabulary of every byte and tricky pieces, at every byte of a set of objects); through the
// batch scheduler, stories260K sampled in JSON mode draws only such tokens, and the default
// chat model answers with objects that parse and end at their closing brace.
#include <QtTest>

#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "chat/chat_format.h"
#include "generate/batch_scheduler.h"
#include "generate/json_constraint.h"
#include "model/model.h"
#include "shared_data.h"

using namespace pyramid;

namespace {

struct Reply {
    std::string bytes;
    FinishReason reason = FinishReason::MaxTokens;
};

// Runs every request to its end; each reply's bytes and how it ended.
std::vector<Reply> run_all(Backend& backend, const Tokenizer& tokenizer, const std::vector<BatchRequest>& requests)
{
    BatchScheduler scheduler(backend, {static_cast<int>(requests.size()), 0, 8192});
    std::map<int, size_t> index;
    for (size_t i = 0; i < requests.size(); ++i)
        index[scheduler.submit(requests[i])] = i;
    std::vector<Reply> replies(requests.size());
    while (!scheduler.idle())
        for (const BatchEvent& e : scheduler.step()) {
            Reply& r = replies[index.at(e.id)];
            if (e.token)
                r.bytes += tokenizer.token_bytes(*e.token);
            if (e.finished)
                r.reason = e.reason;
        }
    return replies;
}

} // namespace

class JsonModeTest : public QObject {
    Q_OBJECT
private slots:
    void the_mask_allows_exactly_what_can_follow()
    {
        std::vector<std::string> tokens;
        for (int b = 0; b < 256; ++b)
            tokens.emplace_back(1, static_cast<char>(b));
        for (const char* t : {"\":\"", "\"", "\":", "\"}", " {", "{\"", "abc", "\xC3", "\xC3\xA9", "é\"", "\\n", "\\u00",
                              "\\uD83D", "\\uDE00", "true", "nul", "12", ".5e", "},", "]}", "\n\n", "", "a\"b", "\xF0\x9F"})
            tokens.emplace_back(t);
        const auto vocabulary = std::make_shared<const JsonVocabulary>(tokens);
        QVERIFY(vocabulary->string_text[static_cast<size_t>('a')]);
        QVERIFY(!vocabulary->string_text[static_cast<size_t>('"')]);
        QVERIFY(!vocabulary->string_text[256]);  // ":" leaves the string and opens another
        QVERIFY(vocabulary->string_text[256 + 6]);   // abc
        QVERIFY(!vocabulary->string_text[256 + 7]);  // half a character
        QVERIFY(vocabulary->string_text[256 + 8]);   // é

        for (const std::string text :
             {"{\"a\": [1, -2.5e+3, true, null, {\"b\": \"c\\\"d\\u00e9\\uD83D\\uDE00\"}], \"é€😀\": {}, \"x\":\"y\"}",
              "{ \"k\":\n\t\"v\", \"n\":0\n}", "{\"a\":{\"b\":{\"c\":[[],[{}]]}}}"}) {
            JsonConstraint constraint(vocabulary, JsonSchema::any_object());
            for (size_t at = 0; at < text.size(); ++at) {
                std::vector<float> logits(tokens.size() + 3, 1.0f);  // 3 ids past the vocabulary
                constraint.mask(logits);
                JsonSchemaPrefix state(JsonSchema::any_object());
                QVERIFY(state.feed(text.substr(0, at)));
                for (size_t id = 0; id < logits.size(); ++id) {
                    const bool allowed = id < tokens.size() && !tokens[id].empty() && state.accepts(tokens[id]);
                    QVERIFY2((logits[id] == 1.0f) == allowed, (text.substr(0, at) + " | token " + std::to_string(id)).c_str());
                }
                QVERIFY(constraint.accept(static_cast<uint8_t>(text[at])));
            }
            QVERIFY(constraint.complete());
            QVERIFY(!constraint.accept('}'));
        }
        JsonConstraint fresh(vocabulary, JsonSchema::any_object());
        QVERIFY(!fresh.accept('x'));
        QVERIFY(!fresh.accept(static_cast<int32_t>(tokens.size())));
        QVERIFY(fresh.accept('{'));
    }

    // A model that knows nothing of JSON, sampled freely: every token it draws keeps the reply
    // the beginning of an object, which the reference parser reads whole where it ended.
    void stories_draw_only_what_can_follow()
    {
        PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
        const auto model = Model::open(path, BackendPreference::Cpu);
        const auto vocabulary = JsonVocabulary::of(model->tokenizer());
        std::vector<BatchRequest> requests;
        for (int i = 0; i < 8; ++i) {
            BatchRequest r;
            r.prompt = {model->tokenizer().bos_id()};
            for (const int32_t id : model->tokenizer().encode("Once upon a time"))
                r.prompt.push_back(id);
            r.max_new_tokens = 60;
            r.sampling.seed = 50 + static_cast<uint64_t>(i);
            r.sampling.temperature = 1.5f;
            r.sampling.top_k = 0;
            r.sampling.min_p = 0;
            r.json.emplace(vocabulary, JsonSchema::any_object());
            if (i % 2)
                r.likeliest_logprobs = 1;
            requests.push_back(r);
        }
        int completed = 0;
        for (const Reply& reply : run_all(model->backend(), model->tokenizer(), requests)) {
            JsonSchemaPrefix prefix(JsonSchema::any_object());
            QVERIFY2(prefix.feed(reply.bytes), reply.bytes.c_str());
            QCOMPARE(reply.reason == FinishReason::EndOfSequence, prefix.complete());
            if (prefix.complete()) {
                ++completed;
                QVERIFY(nlohmann::json::parse(reply.bytes).is_object());
            }
        }
        qInfo("%d of 8 replies closed their object within 60 tokens", completed);
    }

    void the_default_model_answers_in_json()
    {
        PYRAMID_REQUIRE_DEFAULT_MODEL(path);
        const auto model = Model::open(path, BackendPreference::Cpu);
        const ChatTemplate chat(model->tokenizer(), PromptFormat::ChatML);
        const auto vocabulary = JsonVocabulary::of(model->tokenizer());
        std::vector<BatchRequest> requests;
        for (const char* question : {"Give me a JSON object with the name and age of a person.",
                                     "Describe a cat as JSON.", "What is the capital of France? Answer in JSON."}) {
            Conversation c;
            c.messages.push_back({ChatRole::User, question});
            BatchRequest r;
            r.prompt = chat.conversation(c);
            r.max_new_tokens = 120;
            r.sampling.temperature = 0;
            r.eos_token = model->tokenizer().special_token_id("<|im_end|>");
            r.json.emplace(vocabulary, JsonSchema::any_object());
            requests.push_back(r);
            r.json.reset();  // the same question without JSON mode, for comparison
            requests.push_back(r);
        }
        const std::vector<Reply> replies = run_all(model->backend(), model->tokenizer(), requests);
        for (size_t i = 0; i < replies.size(); i += 2)
            qInfo("JSON mode: %s\n  without: %s", replies[i].bytes.c_str(), replies[i + 1].bytes.c_str());
        // The first: {"name": "John", "age": 30} (greedy), whole and ending at its brace.
        QVERIFY(replies[0].reason == FinishReason::EndOfSequence);
        const auto person = nlohmann::json::parse(replies[0].bytes);
        QVERIFY(person.is_object() && person.contains("name") && person.contains("age"));
        for (size_t i = 0; i < replies.size(); i += 2) {
            JsonSchemaPrefix prefix(JsonSchema::any_object());
            QVERIFY(prefix.feed(replies[i].bytes));
            QCOMPARE(replies[i].reason == FinishReason::EndOfSequence, prefix.complete());
        }
    }
};

QTEST_APPLESS_MAIN(JsonModeTest)
#include "test_json_mode.moc"
