// The server's parts that need no HTTP: stop strings over every split of a reply into pieces,
// the request reader's refusals (status and the field named), the prompt's length checks, and
// the replies a ReplyWriter writes for what the serving loop sends.
#include <QtTest>

#include <limits>
#include <random>

#include "api_error.h"
#include "completion_request.h"
#include "ollama_request.h"
#include "reply_writer.h"
#include "stop_strings.h"

using namespace pyramid;
using namespace pyramid::server;

namespace {

// The reply up to the stop string complete first (by its end, then by its start), and whether
// there was one: read off the whole text at once.
std::pair<std::string, bool> cut(const std::string& text, const std::vector<std::string>& stops)
{
    std::pair<size_t, size_t> first{std::string::npos, std::string::npos};  // end, start
    for (const std::string& s : stops)
        if (const size_t at = text.find(s); at != std::string::npos)
            first = std::min(first, {at + s.size(), at});
    return {text.substr(0, first.second), first.second != std::string::npos};
}

// The ApiError a body gets: its status and param.
std::pair<int, std::string> refusal(const std::string& body, Endpoint endpoint = Endpoint::Chat)
{
    try {
        parse_completion_request(body, endpoint, {});
    } catch (const ApiError& e) {
        return {e.status(), e.param()};
    }
    return {0, "accepted"};
}

} // namespace

class ServerPartsTest : public QObject {
    Q_OBJECT
private slots:
    void stop_strings_cut_whatever_the_pieces()
    {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        const std::vector<std::vector<std::string>> stop_sets{
            {"ab\na"}, {"bb", "a\n\n"}, {"aaa", "aab"}, {"\n"}, {"ba", "abab"}};
        for (int round = 0; round < 3000; ++round) {
            const auto& stops = stop_sets[static_cast<size_t>(round) % stop_sets.size()];
            std::string text;
            for (int n = std::uniform_int_distribution<int>(0, 30)(rng); n > 0; --n)
                text += "ab\n"[std::uniform_int_distribution<int>(0, 2)(rng)];
            StopStrings matcher(stops);
            std::string shown;
            for (size_t at = 0; at < text.size();) {
                const size_t piece = std::uniform_int_distribution<size_t>(0, 4)(rng);
                shown += matcher.put(std::string_view(text).substr(at, piece));
                at += piece;
            }
            const bool stopped = matcher.stopped();
            if (!stopped)
                shown += matcher.finish();
            const auto [expected, found] = cut(text, stops);
            QCOMPARE(shown, expected);
            QCOMPARE(stopped, found);
        }
    }

    void stop_strings_show_what_cannot_begin_one()
    {
        StopStrings matcher({"\n\nUser:"});
        QCOMPARE(matcher.put("Hello wor"), std::string("Hello wor"));
        QCOMPARE(matcher.put("ld\n\nUs"), std::string("ld"));
        QCOMPARE(matcher.put("er:"), std::string());
        QVERIFY(matcher.stopped());
        QCOMPARE(matcher.put("more"), std::string());
    }

    void requests_are_read_as_openai_documents_them()
    {
        SamplingParams defaults;
        defaults.temperature = 0.5f;
        const CompletionRequest r = parse_completion_request(
            R"({"model": "x", "messages": [{"role": "system", "content": "Be brief."},
                {"role": "user", "content": [{"type": "text", "text": "Hi "}, {"type": "text", "text": "there"}]},
                {"role": "assistant", "content": "Hello"}, {"role": "user", "content": "Why?"}],
                "max_completion_tokens": 9, "stop": "END", "seed": 0, "top_p": 0.5, "stream": true,
                "stream_options": {"include_usage": true}, "pyramid": {"policy": "pyramid"}, "user": "u"})",
            Endpoint::Chat, defaults);
        QCOMPARE(r.conversation.system_prompt, std::string("Be brief."));
        QCOMPARE(r.conversation.messages.size(), size_t(3));
        QCOMPARE(r.conversation.messages[0].text, std::string("Hi there"));
        QVERIFY(r.conversation.messages[1].role == ChatRole::Assistant);
        QCOMPARE(*r.max_tokens, 9);
        QCOMPARE(r.stop, std::vector<std::string>{"END"});
        QCOMPARE(r.sampling.seed, uint64_t(1));  // request seed 0 is a seed, not "draw one"
        QCOMPARE(r.sampling.temperature, 0.5f);  // the default
        QCOMPARE(r.sampling.top_p, 0.5f);
        QVERIFY(r.stream && r.include_usage);
        QVERIFY(r.compression && r.compression->policy == CompressionPolicyKind::Pyramid);
        QCOMPARE(r.sampling.frequency_penalty, 0.0f);  // the defaults where the request is silent
        QCOMPARE(r.sampling.repetition_penalty, defaults.repetition_penalty);
        QCOMPARE(r.sampling.top_k, defaults.top_k);
    }

    // OpenAI's penalties and llama.cpp's sampling fields reach the sampler.
    void sampling_fields_of_openai_and_llama_cpp()
    {
        const CompletionRequest r = parse_completion_request(
            R"({"prompt": "x", "frequency_penalty": 0.5, "presence_penalty": -1.25, "top_k": 7, "min_p": 0.1,
                "repeat_penalty": 1.2, "repeat_last_n": 128})",
            Endpoint::Text, {});
        QCOMPARE(r.sampling.frequency_penalty, 0.5f);
        QCOMPARE(r.sampling.presence_penalty, -1.25f);
        QCOMPARE(r.sampling.top_k, 7);
        QCOMPARE(r.sampling.min_p, 0.1f);
        QCOMPARE(r.sampling.repetition_penalty, 1.2f);
        QCOMPARE(r.sampling.repetition_window, 128);
        const auto biased = parse_completion_request(R"({"prompt": "x", "logit_bias": {"15": -100, "7": 2.5}})",
                                                     Endpoint::Text, {});
        QCOMPARE(biased.sampling.logit_bias, (std::vector<std::pair<int32_t, float>>{{15, -100.0f}, {7, 2.5f}}));
        const auto vllm = parse_completion_request(R"({"prompt": "x", "repetition_penalty": 1.3, "top_k": -1})",
                                                   Endpoint::Text, {});
        QCOMPARE(vllm.sampling.repetition_penalty, 1.3f);
        QCOMPARE(vllm.sampling.top_k, 0);  // -1: off, as in llama.cpp and vLLM
    }

    void bad_requests_name_the_field()
    {
        using Expected = std::pair<int, std::string>;
        QCOMPARE(refusal("{\"messages\": ["), Expected(400, ""));
        QCOMPARE(refusal("{\"a\": 1, \"a\": 2}"), Expected(400, ""));  // a repeated key
        QCOMPARE(refusal(std::string(100, '[') + std::string(100, ']')), Expected(400, ""));  // too deep
        QCOMPARE(refusal("\"text\""), Expected(400, ""));
        const std::string user = R"("messages": [{"role": "user", "content": "hi"}])";
        QCOMPARE(refusal("{" + user + R"(, "max_tokens": 1.5})"), Expected(400, "max_tokens"));
        QCOMPARE(refusal("{" + user + R"(, "max_tokens": 99999999999})"), Expected(400, "max_tokens"));
        QCOMPARE(refusal("{" + user + R"(, "max_tokens": 3, "max_completion_tokens": 4})"),
                 Expected(400, "max_completion_tokens"));
        QCOMPARE(refusal("{" + user + R"(, "temperature": -0.1})"), Expected(400, "temperature"));
        QCOMPARE(refusal("{" + user + R"(, "seed": 18446744073709551615})"), Expected(400, "seed"));
        QCOMPARE(refusal("{" + user + R"(, "stop": ""})"), Expected(400, "stop"));
        std::string sixteen = "[";
        for (int i = 0; i < kMaxStopStrings; ++i)
            sixteen += (i ? ",\"" : "\"") + std::to_string(i) + "\"";
        QCOMPARE(refusal("{" + user + R"(, "stop": )" + sixteen + "]}"), Expected(0, "accepted"));  // as llama.cpp's clients send
        QCOMPARE(refusal("{" + user + R"(, "stop": )" + sixteen + R"(,"x"]})"), Expected(400, "stop"));
        QCOMPARE(refusal("{" + user + R"(, "n": 1.0})"), Expected(0, "accepted"));
        QCOMPARE(refusal("{" + user + R"(, "frequency_penalty": 2.5})"), Expected(400, "frequency_penalty"));
        QCOMPARE(refusal("{" + user + R"(, "presence_penalty": "high"})"), Expected(400, "presence_penalty"));
        QCOMPARE(refusal("{" + user + R"(, "top_k": -2})"), Expected(400, "top_k"));
        QCOMPARE(refusal("{" + user + R"(, "min_p": 1.5})"), Expected(400, "min_p"));
        QCOMPARE(refusal("{" + user + R"(, "repeat_penalty": 0})"), Expected(400, "repeat_penalty"));
        QCOMPARE(refusal("{" + user + R"(, "repeat_penalty": 1.1, "repetition_penalty": 1.2})"),
                 Expected(400, "repetition_penalty"));
        QCOMPARE(refusal("{" + user + R"(, "repeat_last_n": -1})"), Expected(400, "repeat_last_n"));
        for (const char* bias : {R"({"x": 1})", R"({"1": 101})", R"({"-1": 1})", R"({"1": "1"})", R"({" 1": 1})", "[1]"})
            QCOMPARE(refusal("{" + user + R"(, "logit_bias": )" + bias + "}"), Expected(400, "logit_bias"));
        QCOMPARE(refusal("{" + user + R"(, "pyramid": {"config": {"recent_ratio": 7}}})"), Expected(400, "pyramid"));
        QCOMPARE(refusal("{" + user + R"(, "pyramid": {"preset": "reference-7b", "policy": "full"}})"),
                 Expected(400, "pyramid"));
        QCOMPARE(refusal(R"({"messages": [{"role": "user", "content": "a"}, {"role": "system", "content": "b"},
                                          {"role": "user", "content": "c"}]})"),
                 Expected(400, "messages[1].role"));
        QCOMPARE(refusal(R"({"messages": [{"role": "user", "content": [{"type": "image_url"}]}]})"),
                 Expected(400, "messages[0].content[0]"));
        QCOMPARE(refusal(R"({"messages": [{"role": "user"}]})"), Expected(400, "messages[0].content"));
        QCOMPARE(refusal(R"({"prompt": ["a", "b"]})", Endpoint::Text), Expected(400, "prompt"));
        QCOMPARE(refusal(R"({"prompt": ["a"]})", Endpoint::Text), Expected(0, "accepted"));
    }

    // What the loop sends becomes SSE chunks (role first, finish reason, usage, [DONE]), or one
    // JSON object; a write that fails cancels the channel.
    void writers_answer_as_openai_does()
    {
        const ReplyIdentity identity{Endpoint::Chat, "chatcmpl-1", 1, "m"};
        auto channel = std::make_shared<ReplyChannel>();
        ReplyWriter streamed(identity, true, true, false, channel, std::chrono::milliseconds(1));
        std::string out;
        const auto write = [&](const std::string& bytes) {
            out += bytes;
            return true;
        };
        QVERIFY(streamed.pump(write) == ReplyWriter::Progress::More);
        QCOMPARE(out, std::string(": keep-alive\n\n"));  // nothing yet: a heartbeat
        out.clear();
        channel->push({"Hel"});
        ReplyUpdate end;
        end.text = "lo";
        end.finished = true;
        end.finish_reason = "stop";
        end.prompt_tokens = 5;
        end.completion_tokens = 2;
        channel->push(end);
        QVERIFY(streamed.pump(write) == ReplyWriter::Progress::Done);
        QStringList events = QString::fromStdString(out).split("\n\n", Qt::SkipEmptyParts);
        QCOMPARE(events.size(), 5);
        QVERIFY(events[0].contains(R"("delta":{"content":"Hel","role":"assistant"})"));
        QVERIFY(events[1].contains(R"("delta":{"content":"lo"})"));
        QVERIFY(events[2].contains(R"("finish_reason":"stop")"));
        QVERIFY(events[3].contains(R"("usage":{"completion_tokens":2,"prompt_tokens":5,"total_tokens":7})"));
        QCOMPARE(events[4], QString("data: [DONE]"));

        auto whole_channel = std::make_shared<ReplyChannel>();
        ReplyWriter whole(identity, false, false, false, whole_channel, std::chrono::milliseconds(1));
        out.clear();
        whole_channel->push({"Hi"});
        end.text = "!";
        whole_channel->push(end);
        QVERIFY(whole.pump(write) == ReplyWriter::Progress::Done);
        const auto body = nlohmann::json::parse(out);
        QCOMPARE(body["choices"][0]["message"]["content"].get<std::string>(), std::string("Hi!"));
        QCOMPARE(body["usage"]["total_tokens"].get<int>(), 7);

        QVERIFY(body["choices"][0]["logprobs"].is_null());  // not asked for: null, as OpenAI writes it

        auto gone = std::make_shared<ReplyChannel>();
        ReplyWriter to_nobody(identity, true, false, false, gone, std::chrono::milliseconds(1));
        QVERIFY(to_nobody.pump([](const std::string&) { return false; }) == ReplyWriter::Progress::Failed);
        QVERIFY(gone->cancelled());
    }

    void logprobs_are_asked_for_as_openai_documents()
    {
        const std::string user = R"("messages": [{"role": "user", "content": "hi"}])";
        const auto chat = [&](const std::string& fields) {
            return parse_completion_request("{" + user + fields + "}", Endpoint::Chat, {}).logprobs;
        };
        QCOMPARE(chat(""), std::optional<int>());
        QCOMPARE(chat(R"(, "logprobs": false)"), std::optional<int>());
        QCOMPARE(chat(R"(, "logprobs": true)"), std::optional<int>(0));
        QCOMPARE(chat(R"(, "logprobs": true, "top_logprobs": 20)"), std::optional<int>(20));
        using Expected = std::pair<int, std::string>;
        QCOMPARE(refusal("{" + user + R"(, "top_logprobs": 2})"), Expected(400, "top_logprobs"));
        QCOMPARE(refusal("{" + user + R"(, "logprobs": true, "top_logprobs": 21})"), Expected(400, "top_logprobs"));
        QCOMPARE(refusal("{" + user + R"(, "logprobs": 3})"), Expected(400, "logprobs"));
        const auto text = [](const std::string& fields) {
            return parse_completion_request(R"({"prompt": "x")" + fields + "}", Endpoint::Text, {}).logprobs;
        };
        QCOMPARE(text(""), std::optional<int>());
        QCOMPARE(text(R"(, "logprobs": 5, "echo": false)"), std::optional<int>(5));
        QCOMPARE(refusal(R"({"prompt": "x", "logprobs": true})", Endpoint::Text), Expected(400, "logprobs"));
        QCOMPARE(refusal(R"({"prompt": "x", "echo": true})", Endpoint::Text), Expected(400, "echo"));
    }

    // Ollama's requests become the same CompletionRequest as OpenAI's, its options by name.
    void ollama_requests_are_read_as_ollama_documents_them()
    {
        const OllamaRequest chat = parse_ollama_request(
            R"({"model": "m", "messages": [{"role": "user", "content": "hi"}], "format": "json", "keep_alive": "5m",
                "options": {"temperature": 0.2, "top_k": 5, "num_predict": 12, "stop": ["x"], "seed": 3,
                            "repeat_penalty": 1.2, "num_ctx": 4096}})",
            OllamaRoute::Chat, {});
        QVERIFY(chat.request.stream);  // Ollama streams unless told not to
        QVERIFY(chat.request.json && !chat.load_only);
        QCOMPARE(chat.request.sampling.temperature, 0.2f);
        QCOMPARE(chat.request.sampling.top_k, 5);
        QCOMPARE(chat.request.sampling.repetition_penalty, 1.2f);
        QCOMPARE(chat.request.sampling.seed, uint64_t(4));  // shifted as OpenAI's seed is
        QCOMPARE(*chat.request.max_tokens, 12);
        QCOMPARE(chat.request.stop, std::vector<std::string>{"x"});
        const OllamaRequest raw = parse_ollama_request(
            R"({"prompt": "Once", "raw": true, "stream": false, "options": {"num_predict": -1, "seed": -1}})",
            OllamaRoute::Generate, {});
        QVERIFY(raw.request.endpoint == Endpoint::Text && raw.request.prompt == "Once" && !raw.request.stream);
        QVERIFY(!raw.request.max_tokens);            // until the context is full
        QCOMPARE(raw.request.sampling.seed, uint64_t(0));  // a fresh one
        const OllamaRequest generate =
            parse_ollama_request(R"({"prompt": "Hi", "system": "Be brief."})", OllamaRoute::Generate, {});
        QVERIFY(generate.request.endpoint == Endpoint::Chat);
        QCOMPARE(generate.request.conversation.system_prompt, std::string("Be brief."));
        QCOMPARE(generate.request.conversation.messages.back().text, std::string("Hi"));
        QVERIFY(parse_ollama_request(R"({"model": "m"})", OllamaRoute::Generate, {}).load_only);
        const OllamaRequest structured = parse_ollama_request(
            R"({"prompt": "Hi", "format": {"type": "object", "properties": {"b": {"type": "string"},
                "a": {"type": "boolean"}}, "required": ["b", "a"]}})",
            OllamaRoute::Generate, {});
        QVERIFY(structured.request.json);
        QCOMPARE(structured.request.json->nodes[structured.request.json->root].properties[0].key, std::string("\"b\""));
        const auto refused = [](const std::string& body, OllamaRoute route) {
            try {
                parse_ollama_request(body, route, {});
            } catch (const ApiError& e) {
                return e.param();
            }
            return std::string("accepted");
        };
        const std::string user = R"("messages": [{"role": "user", "content": "hi"}])";
        QCOMPARE(refused("{" + user + R"(, "options": {"top_p": 2}})", OllamaRoute::Chat), std::string("options.top_p"));
        QCOMPARE(refused("{" + user + R"(, "options": {"num_predict": 0}})", OllamaRoute::Chat),
                 std::string("options.num_predict"));
        QCOMPARE(refused("{" + user + R"(, "options": 3})", OllamaRoute::Chat), std::string("options"));
        QCOMPARE(refused("{" + user + R"(, "format": {"type": "integer"}})", OllamaRoute::Chat), std::string("format"));
        QCOMPARE(refused("{" + user + R"(, "format": {"properties": {"n": {"multipleOf": 2}}}})", OllamaRoute::Chat),
                 std::string("format"));
        QCOMPARE(refused("{" + user + R"(, "format": "yaml"})", OllamaRoute::Chat), std::string("format"));
        QCOMPARE(refused(R"({"prompt": "x", "images": ["aGk="]})", OllamaRoute::Generate), std::string("images"));
        QCOMPARE(refused(R"({"prompt": 5})", OllamaRoute::Generate), std::string("prompt"));
        QCOMPARE(refused(R"({"prompt": "x", "raw": "yes"})", OllamaRoute::Generate), std::string("raw"));
    }

    // JSON mode, structured outputs (OpenAI's and llama.cpp's spellings), and schemas that ask
    // for what is not held to, refused naming where.
    void json_is_asked_for_by_response_format()
    {
        const auto schema = [](const std::string& fields) {
            return parse_completion_request(R"({"prompt": "x", )" + fields + "}", Endpoint::Text, {}).json;
        };
        const auto any_object = schema(R"("response_format": {"type": "json_object"})");
        QVERIFY(any_object && any_object->nodes[any_object->root].kind == JsonSchema::Kind::Map);
        QVERIFY(!schema(R"("response_format": {"type": "text"})"));
        QVERIFY(!schema(R"("response_format": null)"));
        QVERIFY(!schema(R"("temperature": 0)"));
        // The properties in the request's order, not the parser's (alphabetical) one.
        for (const std::string& fields :
             {std::string(R"("response_format": {"type": "json_schema", "json_schema": {"name": "p", "strict": true,
                  "schema": {"type": "object", "properties": {"zeta": {"type": "string"}, "alpha": {"type": "integer"}},
                             "required": ["zeta", "alpha"], "additionalProperties": false}}})"),
              std::string(R"("response_format": {"type": "json_object", "schema": {"properties": {"zeta": {},
                  "alpha": {}}}})"),
              std::string(R"("json_schema": {"properties": {"zeta": {}, "alpha": {}}})")}) {
            const auto s = schema(fields);
            QVERIFY2(s, fields.c_str());
            const JsonSchema::Node& root = s->nodes[s->root];
            QVERIFY(root.kind == JsonSchema::Kind::Object && root.properties.size() == 2);
            QCOMPARE(root.properties[0].key, std::string("\"zeta\""));
            QCOMPARE(root.properties[1].key, std::string("\"alpha\""));
        }
        using Expected = std::pair<int, std::string>;
        const std::string user = R"("messages": [{"role": "user", "content": "hi"}])";
        QCOMPARE(refusal("{" + user + R"(, "response_format": {"type": "json_schema", "json_schema": 5}})"),
                 Expected(400, "response_format.json_schema"));
        QCOMPARE(refusal("{" + user + R"(, "response_format": "json"})"), Expected(400, "response_format"));
        QCOMPARE(refusal("{" + user + R"(, "response_format": {"type": "yaml"}})"), Expected(400, "response_format"));
        QCOMPARE(refusal("{" + user + R"(, "json_schema": {}, "response_format": {"type": "text"}})"),
                 Expected(400, "json_schema"));
        try {
            parse_completion_request("{" + user + R"(, "response_format": {"type": "json_schema", "json_schema":
                {"name": "x", "schema": {"properties": {"age": {"type": "integer", "multipleOf": 2}}}}}})",
                                     Endpoint::Chat, {});
            QFAIL("a schema with multipleOf was accepted");
        } catch (const ApiError& e) {
            QCOMPARE(e.param(), std::string("response_format.json_schema.schema"));
            QVERIFY2(std::string(e.what()).find("/properties/age: 'multipleOf' is not supported") != std::string::npos, e.what());
        }
    }

    // Chat: each chunk carries its own tokens' entries, "token" as valid UTF-8 and "bytes" exact
    // (a character split over two tokens), -inf as -9999.0. Text: the legacy lists, offsets in
    // characters.
    void logprobs_are_written_as_openai_does()
    {
        const auto write_all = [](ReplyWriter& writer) {
            std::string out;
            while (writer.pump([&](const std::string& bytes) {
                out += bytes;
                return true;
            }) == ReplyWriter::Progress::More) {
            }
            return out;
        };
        const ReplyToken e_acute_1{"\xC3", -0.5f, {{"\xC3", -0.5f, {}}, {"x", -1.5f, {}}}};
        const ReplyToken e_acute_2{"\xA9", -std::numeric_limits<float>::infinity(), {}};
        ReplyUpdate first{" caf"};
        first.tokens = {{" caf", -0.25f, {{" caf", -0.25f, {}}, {" tea", -2.0f, {}}}}};
        ReplyUpdate end{"é"};
        end.tokens = {e_acute_1, e_acute_2};
        end.finished = true;
        end.finish_reason = "stop";

        auto channel = std::make_shared<ReplyChannel>();
        ReplyWriter streamed({Endpoint::Chat, "chatcmpl-1", 1, "m"}, true, false, true, channel,
                             std::chrono::milliseconds(1));
        channel->push(first);
        channel->push(end);
        const QStringList events = QString::fromStdString(write_all(streamed)).split("\n\n", Qt::SkipEmptyParts);
        QCOMPARE(events.size(), 4);  // two chunks of text, the finish reason, [DONE]
        const auto chunk = [&](int i) { return nlohmann::json::parse(events[i].mid(6).toStdString())["choices"][0]; };
        const auto content0 = chunk(0)["logprobs"]["content"];
        QCOMPARE(content0.size(), size_t(1));
        QCOMPARE(content0[0]["token"].get<std::string>(), std::string(" caf"));
        QCOMPARE(content0[0]["logprob"].get<double>(), -0.25);
        QCOMPARE(content0[0]["bytes"], nlohmann::json({32, 99, 97, 102}));
        QCOMPARE(content0[0]["top_logprobs"][1]["token"].get<std::string>(), std::string(" tea"));
        const auto content1 = chunk(1)["logprobs"]["content"];
        QCOMPARE(content1[0]["token"].get<std::string>(), std::string("\xEF\xBF\xBD"));  // U+FFFD
        QCOMPARE(content1[0]["bytes"], nlohmann::json({0xC3}));
        QCOMPARE(content1[1]["logprob"].get<double>(), -9999.0);
        QVERIFY(chunk(2)["logprobs"].is_null());  // the finish reason's chunk has no tokens

        auto text_channel = std::make_shared<ReplyChannel>();
        ReplyWriter whole({Endpoint::Text, "cmpl-1", 1, "m"}, false, false, true, text_channel,
                          std::chrono::milliseconds(1));
        text_channel->push(first);
        text_channel->push(end);
        const auto body = nlohmann::json::parse(write_all(whole));
        const auto logprobs = body["choices"][0]["logprobs"];
        QCOMPARE(body["choices"][0]["text"].get<std::string>(), std::string(" café"));
        QCOMPARE(logprobs["tokens"].size(), size_t(3));
        QCOMPARE(logprobs["token_logprobs"][2].get<double>(), -9999.0);
        QCOMPARE(logprobs["top_logprobs"][0][" tea"].get<double>(), -2.0);
        QCOMPARE(logprobs["top_logprobs"][1].size(), size_t(2));
        QCOMPARE(logprobs["text_offset"], nlohmann::json({0, 4, 5}));  // é at 4, counted by its first byte
    }
};

QTEST_APPLESS_MAIN(ServerPartsTest)
#include "test_server_parts.moc"
