// JsonPrefix against nlohmann's parser as the reference: random objects (every kind of value,
// escapes, surrogate pairs, multi-byte characters, whitespace) are accepted byte by byte and
// complete exactly at their closing brace; random one-byte mutations of them are read whole
// exactly when the reference reads them as an object.
#include <QtTest>

#include <optional>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "generate/json_schema_prefix.h"
#include "json_spacing.h"

using namespace pyramid;

namespace {

// Whether nlohmann's parser reads `text` as one object, within the limits JsonPrefix holds a
// model to (its trailing whitespace aside: nothing follows an object in JSON mode). None when
// it cannot say: it stops at a number past double's range, valid JSON, before the syntax ends.
std::optional<bool> reference_object(std::string text)
{
    text.erase(text.find_last_not_of(" \t\n\r") + 1);
    if (!test::spacing_as_allowed(text) || !test::digits_as_allowed(text))
        return false;
    try {
        return nlohmann::json::parse(text).is_object();
    } catch (const nlohmann::json::parse_error&) {
        return false;
    } catch (const nlohmann::json::out_of_range&) {
        return std::nullopt;
    }
}

std::string escaped(const std::string& text)
{
    std::string out;
    for (const char c : text)
        out += (c >= 0x20 && c < 0x7f) ? std::string(1, c) : "<" + std::to_string(uint8_t(c)) + ">";
    return out;
}

class Writer {
public:
    explicit Writer(std::mt19937& rng) : rng_(rng) {}

    std::string object(int depth)
    {
        // White space where formatted JSON has it: none before a colon or a comma.
        const int members = pick(0, depth > 3 ? 1 : 4);
        if (members == 0)
            return "{" + space() + "}";
        std::string out = "{" + space();
        for (int n = members; n > 0; --n) {
            out += string() + ":" + space() + value(depth + 1);
            if (n > 1)
                out += "," + space();
        }
        return out + space() + "}";
    }

private:
    int pick(int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng_); }

    std::string space() { return test::random_spacing(rng_); }

    std::string string()
    {
        static const char* pieces[] = {"a", "Z", " ", "\\\"", "\\\\", "\\/", "\\n", "\\t", "\\u00e9", "\\uD83D\\uDE00",
                                       "é", "€", "😀", "日本", "{", "]", ":", ","};
        std::string out = "\"";
        for (int n = pick(0, 6); n > 0; --n)
            out += pieces[pick(0, 17)];
        return out + "\"";
    }

    std::string number()
    {
        std::string out = pick(0, 1) ? "-" : "";
        out += pick(0, 2) == 0 ? "0" : std::to_string(pick(1, 99999));
        if (pick(0, 1))
            out += "." + std::to_string(pick(0, 999));
        if (pick(0, 2) == 0)
            out += std::string(pick(0, 1) ? "e" : "E") + (pick(0, 1) ? "-" : "+") + std::to_string(pick(0, 30));
        return out;
    }

    std::string value(int depth)
    {
        switch (pick(0, depth > 4 ? 4 : 6)) {
        case 0: return string();
        case 1: return number();
        case 2: return "true";
        case 3: return pick(0, 1) ? "false" : "null";
        case 4: return "[]";
        case 5: {
            std::string out = "[" + space();
            for (int n = pick(1, 3); n > 0; --n)
                out += value(depth + 1) + (n > 1 ? "," + space() : "");
            return out + space() + "]";
        }
        default: return object(depth);
        }
    }

    std::mt19937& rng_;
};

} // namespace

class JsonSchemaPrefixAnyObjectTest : public QObject {
    Q_OBJECT
private slots:
    void objects_are_accepted_to_their_end()
    {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        Writer writer(rng);
        for (int round = 0; round < 2000; ++round) {
            const std::string text = writer.object(0);
            QVERIFY2(nlohmann::json::accept(text), text.c_str());
            JsonSchemaPrefix prefix(JsonSchema::any_object());
            for (size_t i = 0; i < text.size(); ++i) {
                QVERIFY2(!prefix.complete(), text.c_str());
                QVERIFY2(prefix.feed(text[i]), (text + " at " + std::to_string(i)).c_str());
            }
            QVERIFY2(prefix.complete(), text.c_str());
            QVERIFY(!prefix.feed(' '));  // nothing follows the object
            QVERIFY(!prefix.feed('{'));
        }
    }

    void mutations_are_read_as_the_reference_reads_them()
    {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        Writer writer(rng);
        const std::string bytes = "{}[]\":,.-+eE0123456789tfnrul \\\n\tx\xc3\xa9\x80\xff\xed\xa0\x01/";
        int refused = 0;
        for (int round = 0; round < 20000; ++round) {
            std::string text = writer.object(0);
            const size_t at = std::uniform_int_distribution<size_t>(0, text.size())(rng);
            const char byte = bytes[std::uniform_int_distribution<size_t>(0, bytes.size() - 1)(rng)];
            switch (round % 3) {
            case 0: text.insert(at, 1, byte); break;
            case 1: if (at < text.size()) text[at] = byte; break;
            default: if (at < text.size()) text.erase(at, 1); break;
            }
            JsonSchemaPrefix prefix(JsonSchema::any_object());
            size_t accepted = 0;
            while (accepted < text.size() && prefix.feed(text[accepted]))
                ++accepted;
            // Whole and complete where the reference reads an object; else refused or unfinished.
            const size_t end = text.find_last_not_of(" \t\n\r") + 1;
            const bool read = accepted >= end && prefix.complete();
            const std::optional<bool> reference = reference_object(text);
            if (!reference)
                continue;
            QVERIFY2(read == *reference, (escaped(text) + " accepted to " + std::to_string(accepted)).c_str());
            refused += !read;
        }
        QVERIFY(refused > 5000);  // the mutations did break many
    }

    void the_limits_a_model_is_held_to()
    {
        JsonSchemaPrefix deep(JsonSchema::any_object());
        QVERIFY(deep.feed("{\"a\":"));
        for (int i = 1; i < JsonSchemaPrefix::kMaxDepth; ++i)
            QVERIFY(deep.feed('['));
        QVERIFY(!deep.feed('['));  // the 33rd container
        QVERIFY(!deep.feed('{'));
        QVERIFY(deep.feed("],{"));  // a refused byte changed nothing
        JsonSchemaPrefix padded(JsonSchema::any_object());
        QVERIFY(padded.feed("{\n" + std::string(JsonSchemaPrefix::kMaxIndent, ' ')));
        QVERIFY(!padded.accepts(" "));  // the indent's bound
        QVERIFY(!padded.accepts("\n"));  // no line break after an indent
        QVERIFY(!padded.accepts("\"k\" :"));  // nothing before a colon
        QVERIFY(padded.feed("\"k\":"));
        QVERIFY(!padded.accepts("  "));  // one space, or a line break
        QVERIFY(!padded.accepts(" \n"));
        QVERIFY(!padded.accepts("\t"));
        QVERIFY(padded.feed("\n\t[1"));
        QVERIFY(!padded.accepts(" ,"));  // nothing before a comma
        QVERIFY(!padded.accepts("\n,"));
        QVERIFY(padded.feed(",\n\t2\n]\n}"));
        QVERIFY(padded.complete());
        JsonSchemaPrefix blank_lines(JsonSchema::any_object());
        QVERIFY(!blank_lines.accepts("{\n\n"));
        QVERIFY(!blank_lines.accepts("{\r\n"));
        JsonSchemaPrefix not_object(JsonSchema::any_object());
        QVERIFY(!not_object.feed('['));
        QVERIFY(!not_object.feed('"'));
        QVERIFY(!not_object.feed("\x01"));
        QVERIFY(not_object.feed(" {\"s\": \"tab\\tok\"}"));
        // A lone low surrogate is refused at the digit that decides it: no digit could go on.
        JsonSchemaPrefix escapes(JsonSchema::any_object());
        QVERIFY(escapes.feed("{\"\\uD"));
        QVERIFY(!escapes.accepts("E"));
        QVERIFY(escapes.feed("83D\\uD"));  // a high one: now only a low one may follow
        QVERIFY(!escapes.accepts("8"));
        QVERIFY(escapes.feed("E00\":1}"));
        JsonSchemaPrefix control(JsonSchema::any_object());
        QVERIFY(!control.feed("{\"a\tb\""));  // a raw tab inside a string
    }
};

QTEST_APPLESS_MAIN(JsonSchemaPrefixAnyObjectTest)
#include "test_json_schema_prefix.moc"
