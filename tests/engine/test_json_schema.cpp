// Structured outputs: JsonSchemaPrefix against a reference validator written here in another
// way (recursive, over parsed values, reading the schema document itself). For a set of
// schemas (objects with required and optional properties, enums, unions, recursion through
// $defs, maps, bounded arrays and strings): random valid documents are accepted byte by byte
// and complete exactly at their end; one-byte mutations of them, read whole, are always valid
// (soundness), and every valid one the recognizer's rules allow (properties in the schema's
// order, no duplicate keys) is read whole (completeness). Schemas asking for what is not held
// to are refused naming the place; the constraint's trie walk equals trying every token; and
// stories260K sampled under a schema writes only valid documents.
#include <QtTest>

#include <map>
#include <optional>
#include <random>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "generate/batch_scheduler.h"
#include "generate/json_constraint.h"
#include "generate/json_schema.h"
#include "generate/json_schema_prefix.h"
#include "format_reference.h"
#include "json_spacing.h"
#include "model/model.h"
#include "shared_data.h"
#include "util/error.h"
#include "util/json_input.h"

using namespace pyramid;
using ordered = nlohmann::ordered_json;

namespace {

const char* const kSchemas[] = {
    // A person: required and optional properties, nested object, enum, bounded array.
    "{\"type\": \"object\", \"properties\": {"
    "  \"name\": {\"type\": \"string\", \"minLength\": 1, \"maxLength\": 12},"
    "  \"age\": {\"type\": \"integer\"},"
    "  \"nick\": {\"type\": [\"string\", \"null\"]},"
    "  \"height\": {\"type\": \"number\"},"
    "  \"colour\": {\"enum\": [\"red\", \"green\", \"blue\", 1, 10, -1, true, null]},"
    "  \"tags\": {\"type\": \"array\", \"items\": {\"type\": \"string\", \"maxLength\": 3}, \"minItems\": 1, \"maxItems\": 3},"
    "  \"address\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}, \"zip\": {\"const\": \"X1\"}},"
    "               \"required\": [\"city\"], \"additionalProperties\": false}},"
    " \"required\": [\"name\", \"colour\", \"tags\"], \"additionalProperties\": false}",
    // pydantic's shape: $defs, $ref, anyOf with null, titles and descriptions.
    "{\"$defs\": {\"Pet\": {\"title\": \"Pet\", \"type\": \"object\", \"properties\": {"
    "    \"kind\": {\"enum\": [\"cat\", \"dog\"]}, \"legs\": {\"type\": \"integer\"}}, \"required\": [\"kind\"]},"
    "  \"Car\": {\"type\": \"object\", \"properties\": {\"kind\": {\"const\": \"car\"}, \"wheels\": {\"type\": \"integer\"}},"
    "    \"required\": [\"kind\", \"wheels\"]}},"
    " \"title\": \"Owner\", \"type\": \"object\", \"properties\": {"
    "  \"owns\": {\"type\": \"array\", \"items\": {\"anyOf\": [{\"$ref\": \"#/$defs/Pet\"}, {\"$ref\": \"#/$defs/Car\"}]}},"
    "  \"best\": {\"anyOf\": [{\"$ref\": \"#/$defs/Pet\"}, {\"type\": \"null\"}], \"default\": null, \"description\": \"x\"}},"
    " \"required\": [\"owns\", \"best\"]}",
    // Recursion: a tree.
    "{\"$ref\": \"#/definitions/node\", \"definitions\": {\"node\": {\"type\": \"object\", \"properties\": {"
    "  \"v\": {\"type\": \"integer\"}, \"kids\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/definitions/node\"}, \"maxItems\": 2}},"
    " \"required\": [\"v\"]}}}",
    // A map of numbers, an array at the top, anything inside.
    "{\"type\": \"array\", \"maxItems\": 4, \"items\": {\"anyOf\": [{\"type\": \"object\", \"additionalProperties\": "
    "{\"type\": \"number\"}}, {\"type\": \"object\", \"properties\": {\"any\": {}}, \"required\": [\"any\"]}, "
    "{\"type\": \"boolean\"}]}}",
    // A string of bounded length at the top.
    "{\"type\": \"string\", \"minLength\": 2, \"maxLength\": 5}",
    // Bounded numbers (2020-12's and draft 4's spellings) and formats, and an enum whose values
    // the bounds and format beside it thin out.
    "{\"type\": \"object\", \"properties\": {"
    "  \"age\": {\"type\": \"integer\", \"minimum\": 0, \"maximum\": 120},"
    "  \"score\": {\"type\": \"number\", \"exclusiveMinimum\": -1.5, \"maximum\": 2.25},"
    "  \"count\": {\"type\": [\"integer\", \"null\"], \"exclusiveMaximum\": 10, \"minimum\": -3.5},"
    "  \"ratio\": {\"type\": \"number\", \"minimum\": 0, \"exclusiveMinimum\": true, \"maximum\": 1},"
    "  \"born\": {\"type\": \"string\", \"format\": \"date\"},"
    "  \"at\": {\"type\": \"string\", \"format\": \"date-time\"},"
    "  \"alarm\": {\"type\": [\"string\", \"null\"], \"format\": \"time\"},"
    "  \"id\": {\"type\": \"string\", \"format\": \"uuid\"},"
    "  \"mail\": {\"type\": \"string\", \"format\": \"email\", \"maxLength\": 6},"
    "  \"code\": {\"type\": \"string\", \"pattern\": \"^[A-Z]{2}-\\\\d{3}$\"},"
    "  \"quote\": {\"type\": \"string\", \"pattern\": \"^\\\"?[a-z/]+\\\"?$\"},"
    "  \"level\": {\"enum\": [1, 5, 10, 2.5, \"a\", \"2024-01-01\", \"x\"], \"maximum\": 6, \"format\": \"date\"}},"
    " \"required\": [\"age\", \"born\"], \"additionalProperties\": false}",
    // Tuples: pydantic's tuple[float, float], a row of a string and an integer then booleans,
    // draft 7's items list closed by additionalItems, a tuple of containers.
    "{\"type\": \"object\", \"properties\": {"
    "  \"point\": {\"type\": \"array\", \"prefixItems\": [{\"type\": \"number\"}, {\"type\": \"number\"}], \"minItems\": 2, \"maxItems\": 2},"
    "  \"row\": {\"type\": \"array\", \"prefixItems\": [{\"type\": \"string\"}, {\"type\": \"integer\"}], \"items\": {\"type\": \"boolean\"}, \"minItems\": 1},"
    "  \"old\": {\"type\": \"array\", \"items\": [{\"const\": \"a\"}, {\"type\": \"null\"}], \"additionalItems\": false},"
    "  \"nest\": {\"prefixItems\": [{\"type\": \"array\", \"items\": {\"type\": \"integer\"}}, {\"type\": \"object\", \"properties\": {\"k\": {\"type\": \"string\"}}}], \"items\": false}},"
    " \"required\": [\"point\", \"row\"]}",
};

const ordered& resolve(const ordered& root, const ordered& s)
{
    if (s.is_object() && s.contains("$ref"))
        return resolve(root, root.at(ordered::json_pointer(s["$ref"].get<std::string>().substr(1))));
    return s;
}

size_t code_points(const std::string& text)
{
    size_t n = 0;
    for (const char c : text)
        n += (static_cast<uint8_t>(c) & 0xC0) != 0x80;
    return n;
}

// Bounds on a number as JSON Schema writes them (both drafts), compared as doubles, as Python
// compares them.
bool in_bounds(const ordered& s, double x)
{
    const auto number = [&](const char* k) { return s.contains(k) && s[k].is_number(); };
    const auto draft4 = [&](const char* k) { return s.contains(k) && s[k].is_boolean() && s[k].get<bool>(); };
    if (number("minimum") && (draft4("exclusiveMinimum") ? x <= s["minimum"].get<double>() : x < s["minimum"].get<double>()))
        return false;
    if (number("maximum") && (draft4("exclusiveMaximum") ? x >= s["maximum"].get<double>() : x > s["maximum"].get<double>()))
        return false;
    if (number("exclusiveMinimum") && x <= s["exclusiveMinimum"].get<double>())
        return false;
    return !number("exclusiveMaximum") || x < s["exclusiveMaximum"].get<double>();
}

// What applies to a number or a string beside its type: bounds, lengths, format.
bool meets_siblings(const ordered& s, const ordered& v)
{
    if (v.is_number())
        return in_bounds(s, v.get<double>());
    if (!v.is_string())
        return true;
    const std::string text = v.get<std::string>();
    const size_t n = code_points(text);
    return n >= s.value("minLength", size_t{0}) && n <= s.value("maxLength", size_t{1000000}) &&
           test::is_of_format(s.value("format", std::string()), text) &&
           (!s.contains("pattern") || std::regex_search(text, std::regex(s["pattern"].get<std::string>(), std::regex::ECMAScript)));
}

// The reference: whether `v` is a value of `s`. `in_order`: cleared where an object's keys do
// not come in the schema's order (valid, but not what the recognizer reads).
bool valid(const ordered& root, const ordered& schema, const ordered& v, bool& in_order)
{
    const ordered& s = resolve(root, schema);
    if (s.is_boolean())
        return s.get<bool>();
    for (const char* union_word : {"anyOf", "oneOf", "allOf"})
        if (s.contains(union_word)) {
            bool any = false, any_in_order = false;
            for (const auto& alternative : s[union_word]) {
                bool order = true;
                if (valid(root, alternative, v, order)) {
                    any = true;
                    any_in_order = any_in_order || order;
                }
            }
            in_order = in_order && any_in_order;
            return any;
        }
    if (s.contains("enum") || s.contains("const")) {
        const ordered values = s.contains("enum") ? s["enum"] : ordered::array({s["const"]});
        for (const auto& e : values)
            if (e == v && e.is_number_float() == v.is_number_float())
                return meets_siblings(s, v);
        return false;
    }
    std::vector<std::string> types;
    if (s.contains("type"))
        for (const auto& t : s["type"].is_array() ? s["type"] : ordered::array({s["type"]}))
            types.push_back(t.get<std::string>());
    const auto allows = [&](const char* t) { return types.empty() || std::find(types.begin(), types.end(), t) != types.end(); };
    if (v.is_object()) {
        if (!allows("object"))
            return false;
        const ordered props = s.value("properties", ordered::object());
        std::vector<std::string> declared;
        for (const auto& [k, _] : props.items())
            declared.push_back(k);
        for (const auto& r : s.value("required", ordered::array()))
            if (!v.contains(r.get<std::string>()))
                return false;
        // JSON Schema's rule; the recognizer also writes no other keys beside declared ones.
        const bool closed = s.value("additionalProperties", ordered(true)) == false;
        const bool declares = s.contains("properties") || s.contains("required");
        size_t last = 0;
        for (const auto& [k, value] : v.items()) {
            const auto at = std::find(declared.begin(), declared.end(), k);
            if (at == declared.end()) {
                if (closed)
                    return false;
                in_order = in_order && !declares;
                const ordered extra = s.value("additionalProperties", ordered(true));
                if (!valid(root, extra, value, in_order))
                    return false;
                continue;
            }
            const auto index = static_cast<size_t>(at - declared.begin()) + 1;
            in_order = in_order && index > last;
            last = index;
            if (!valid(root, props[k], value, in_order))
                return false;
        }
        return true;
    }
    if (v.is_array()) {
        if (!allows("array") || v.size() < s.value("minItems", size_t{0}) || v.size() > s.value("maxItems", size_t{1000000}))
            return false;
        // 2020-12's prefixItems then items; draft 7's items list then additionalItems.
        const bool draft7 = s.contains("items") && s["items"].is_array();
        const ordered first = draft7 ? s["items"] : s.value("prefixItems", ordered::array());
        const ordered rest = draft7 ? s.value("additionalItems", ordered(true)) : s.value("items", ordered(true));
        for (size_t i = 0; i < v.size(); ++i)
            if (!valid(root, i < first.size() ? first[i] : rest, v[i], in_order))
                return false;
        return true;
    }
    if (v.is_string())
        return allows("string") && meets_siblings(s, v);
    if (v.is_number_integer())
        return (allows("integer") || allows("number")) && meets_siblings(s, v);
    if (v.is_number_float())
        return allows("number") && meets_siblings(s, v);
    if (v.is_boolean())
        return allows("boolean");
    return allows("null");
}

// Random valid documents of a schema, keys in its order, with whitespace between tokens.
class Writer {
public:
    Writer(const ordered& root, std::mt19937& rng) : root_(root), rng_(rng) {}

    std::string value(const ordered& schema, int depth)
    {
        const ordered& s = resolve(root_, schema);
        if (s.is_boolean() || s.empty())
            return any(depth);
        for (const char* union_word : {"anyOf", "oneOf"})
            if (s.contains(union_word))
                return value(s[union_word][pick(0, static_cast<int>(s[union_word].size()) - 1)], depth);
        if (s.contains("enum")) {
            ordered kept = ordered::array();
            for (const auto& e : s["enum"])
                if (meets_siblings(s, e))
                    kept.push_back(e);
            return kept[pick(0, static_cast<int>(kept.size()) - 1)].dump();
        }
        if (s.contains("const"))
            return s["const"].dump();
        std::string type = s.contains("type") ? "" : (s.contains("items") || s.contains("prefixItems") ? "array" : "object");
        if (s.contains("type"))
            type = s["type"].is_array() ? s["type"][pick(0, static_cast<int>(s["type"].size()) - 1)].get<std::string>()
                                        : s["type"].get<std::string>();
        if (type == "object")
            return object(s, depth);
        if (type == "array") {
            const bool draft7 = s.contains("items") && s["items"].is_array();
            const ordered first = draft7 ? s["items"] : s.value("prefixItems", ordered::array());
            const ordered rest = draft7 ? s.value("additionalItems", ordered(true)) : s.value("items", ordered(true));
            const int most = rest == false ? static_cast<int>(first.size()) : 3 + static_cast<int>(first.size());
            const int lo = s.value("minItems", 0), hi = std::min({s.value("maxItems", most), most, depth > 3 ? lo : most});
            const int items = pick(lo, std::max(lo, hi));
            if (items == 0)
                return "[" + space() + "]";
            std::string out = "[" + space();
            for (int i = 0; i < items; ++i)
                out += value(static_cast<size_t>(i) < first.size() ? first[static_cast<size_t>(i)] : rest, depth + 1) +
                       (i + 1 < items ? "," + space() : "");
            return out + space() + "]";
        }
        if (s.contains("pattern"))
            return patterned(s["pattern"].get<std::string>());
        if (type == "string" && s.contains("format") && s["format"] != "email")
            return "\"" + test::random_of_format(s["format"], rng_) + "\"";
        if (type == "string")
            return string(s.value("minLength", 0), s.value("maxLength", 8));
        const bool bounded = s.dump().find("imum") != std::string::npos;
        if (bounded) {  // a value in range, drawn until one is (without an exponent)
            for (;;) {
                const int whole = pick(-130, 130);
                std::string text = whole == 0 && pick(0, 1) ? "-0" : std::to_string(whole);
                if (type == "number" && pick(0, 1))
                    text += "." + std::to_string(pick(0, 9)) + (pick(0, 1) ? std::to_string(pick(0, 9)) : "");
                if (in_bounds(s, std::stod(text)))
                    return text;
            }
        }
        if (type == "integer")
            return std::to_string(pick(-50, 50000));
        if (type == "number")
            return std::to_string(pick(-9, 9)) + "." + std::to_string(pick(0, 99)) + (pick(0, 1) ? "e-3" : "");
        if (type == "boolean")
            return pick(0, 1) ? "true" : "false";
        return "null";
    }

private:
    int pick(int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng_); }

    std::string space() { return test::random_spacing(rng_); }

    // A string of one of the patterns kSchemas names, as JSON.
    std::string patterned(const std::string& pattern)
    {
        std::string out = "\"";
        if (pattern == "^[A-Z]{2}-\\d{3}$") {
            out += static_cast<char>('A' + pick(0, 25));
            out += static_cast<char>('A' + pick(0, 25));
            out += "-" + std::to_string(pick(100, 999));
        } else {  // ^"?[a-z/]+"?$, the quotes and slashes escaped or not
            const bool quoted = pick(0, 1);
            out += quoted ? "\\\"" : "";
            for (int n = pick(1, 5); n > 0; --n)
                out += pick(0, 5) == 0 ? (pick(0, 1) ? "\\/" : "/") : std::string(1, static_cast<char>('a' + pick(0, 25)));
            out += quoted ? "\\\"" : "";
        }
        return out + "\"";
    }

    std::string string(int min, int max)
    {
        // Each piece one character.
        static const char* pieces[] = {"a", "Z", " ", "\\\"", "\\\\", "\\n", "\\u00e9", "\\uD83D\\uDE00", "é", "€", "😀", "{", ":"};
        std::string out = "\"";
        for (int n = pick(min, std::min(max, min + 6)); n > 0; --n)
            out += pieces[pick(0, 12)];
        return out + "\"";
    }

    std::string object(const ordered& s, int depth)
    {
        std::string out = "{" + space();
        bool first = true;
        const ordered required = s.value("required", ordered::array());
        if (s.contains("properties") || s.contains("required")) {
            const ordered properties = s.value("properties", ordered::object());
            for (const auto& [key, schema] : properties.items()) {
                const bool needed = std::find(required.begin(), required.end(), key) != required.end();
                if (!needed && pick(0, 1))
                    continue;
                out += (first ? "" : "," + space()) + ordered(key).dump() + ":" + space() + value(schema, depth + 1);
                first = false;
            }
        } else {
            for (int n = pick(0, depth > 3 ? 0 : 3); n > 0; --n) {
                // Keys apart (a key twice is valid JSON the recognizer need not read).
                out += (first ? "" : "," + space()) + "\"" + std::to_string(n) + string(0, 3).substr(1) + ":" + space() +
                       value(s.value("additionalProperties", ordered(true)), depth + 1);
                first = false;
            }
        }
        return first ? "{" + space() + "}" : out + space() + "}";
    }

    std::string any(int depth)
    {
        switch (pick(0, depth > 3 ? 3 : 5)) {
        case 0: return string(0, 4);
        case 1: return std::to_string(pick(-5, 5));
        case 2: return "true";
        case 3: return "null";
        case 4: return "[" + any(depth + 1) + "," + space() + any(depth + 1) + "]";
        default: return "{" + string(0, 3) + ":" + any(depth + 1) + "}";
        }
    }

    const ordered& root_;
    std::mt19937& rng_;
};

std::shared_ptr<const JsonSchema> compiled(const char* text) { return JsonSchema::compile(ordered::parse(text)); }

// Whether the recognizer reads `text` whole (trailing whitespace aside).
bool read_whole(const std::shared_ptr<const JsonSchema>& schema, const std::string& text)
{
    JsonSchemaPrefix prefix(schema);
    size_t accepted = 0;
    while (accepted < text.size() && prefix.feed(text[accepted]))
        ++accepted;
    const size_t end = text.find_last_not_of(" \t\n\r") + 1;
    return accepted >= end && prefix.complete();
}

// Whether a number outside strings in `text` has an exponent.
bool has_exponent(const std::string& text)
{
    bool in_string = false, escaped = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
        } else if (c == '"') {
            in_string = true;
        } else if ((c == 'e' || c == 'E') && i > 0 && text[i - 1] >= '0' && text[i - 1] <= '9') {
            return true;
        }
    }
    return false;
}

// The reference's verdict on `text`: valid, and whether the recognizer's rules allow it (keys
// in order, none twice, whitespace as allowed). None: not JSON at all.
struct Verdict {
    bool valid = false;
    bool readable = false;
};

Verdict reference(const ordered& schema, std::string text)
{
    text.erase(text.find_last_not_of(" \t\n\r") + 1);
    Verdict verdict;
    ordered document;
    try {
        document = ordered::parse(text);
    } catch (const ordered::exception&) {
        return verdict;
    }
    bool in_order = true;
    verdict.valid = valid(schema, schema, document, in_order);
    const bool short_runs = test::spacing_as_allowed(text) && test::digits_as_allowed(text);
    bool once = true;
    try {
        parse_json_document(text, "test");
    } catch (const Error&) {
        once = false;  // a key twice
    }
    // A bounded number is written without an exponent (number_range.h); the schemas that bound
    // numbers bound them all.
    const bool bounds = schema.dump().find("imum") != std::string::npos;
    verdict.readable = verdict.valid && in_order && short_runs && once && !(bounds && has_exponent(text));
    return verdict;
}

std::string escaped(const std::string& text)
{
    std::string out;
    for (const char c : text)
        out += (c >= 0x20 && c < 0x7f) ? std::string(1, c) : "<" + std::to_string(uint8_t(c)) + ">";
    return out;
}

} // namespace

class JsonSchemaTest : public QObject {
    Q_OBJECT
private slots:
    void documents_are_accepted_to_their_end()
    {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        for (const char* text : kSchemas) {
            const ordered schema = ordered::parse(text);
            const auto s = compiled(text);
            Writer writer(schema, rng);
            for (int round = 0; round < 400; ++round) {
                const std::string doc = writer.value(schema, 0);
                QVERIFY2(reference(schema, doc).readable, (doc + " written for " + text).c_str());
                JsonSchemaPrefix prefix(s);
                for (size_t i = 0; i < doc.size(); ++i) {
                    QVERIFY2(!prefix.complete(), doc.c_str());
                    QVERIFY2(prefix.feed(doc[i]), (escaped(doc) + " at " + std::to_string(i) + " for " + text).c_str());
                }
                QVERIFY2(prefix.complete(), doc.c_str());
                QVERIFY(!prefix.feed(' '));  // nothing follows
            }
        }
    }

    // Whatever the reader takes can be finished: walks that take random allowed bytes (white
    // space often, where allowed) always find one, and closing bytes finish them.
    void no_accepted_beginning_is_a_dead_end()
    {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        const std::string favoured = " \n\t}]\",:";
        for (const char* text : kSchemas) {
            const auto s = compiled(text);
            for (int walk = 0; walk < 200; ++walk) {
                JsonSchemaPrefix prefix(s);
                std::string taken;
                for (int step = 0; step < 400 && !prefix.complete(); ++step) {
                    std::vector<char> allowed, preferred;
                    for (int b = 0; b < 256; ++b)
                        if (prefix.accepts(std::string(1, static_cast<char>(b)))) {
                            allowed.push_back(static_cast<char>(b));
                            if (favoured.find(static_cast<char>(b)) != std::string::npos)
                                preferred.push_back(static_cast<char>(b));
                        }
                    QVERIFY2(!allowed.empty(), ("a dead end after " + escaped(taken) + " for " + text).c_str());
                    const std::vector<char>& from = !preferred.empty() && rng() % 2 ? preferred : allowed;
                    taken += from[rng() % from.size()];
                    QVERIFY(prefix.feed(taken.back()));
                }
            }
        }
    }

    void mutations_read_whole_are_valid_and_valid_ones_are_read()
    {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        const std::string bytes = "{}[]\":,.-+eE0123456789tfnrulabcdeghikmoswvxyzTZ \\\n\xc3\xa9\x80\xff\x01";
        int read = 0, refused = 0;
        for (const char* text : kSchemas) {
            const ordered schema = ordered::parse(text);
            const auto s = compiled(text);
            Writer writer(schema, rng);
            for (int round = 0; round < 4000; ++round) {
                std::string doc = writer.value(schema, 0);
                const size_t at = std::uniform_int_distribution<size_t>(0, doc.size())(rng);
                const char byte = bytes[std::uniform_int_distribution<size_t>(0, bytes.size() - 1)(rng)];
                switch (round % 3) {
                case 0: doc.insert(at, 1, byte); break;
                case 1: if (at < doc.size()) doc[at] = byte; break;
                default: if (at < doc.size()) doc.erase(at, 1); break;
                }
                const bool whole = read_whole(s, doc);
                const Verdict verdict = reference(schema, doc);
                const std::string what = escaped(doc) + " for " + text;
                if (whole)
                    QVERIFY2(verdict.valid, ("read whole but invalid: " + what).c_str());
                if (verdict.readable)
                    QVERIFY2(whole, ("valid but refused: " + what).c_str());
                read += whole;
                refused += !whole;
            }
        }
        QVERIFY(read > 2000 && refused > 2000);  // the mutations kept many and broke many
    }

    void schemas_asking_for_what_is_not_held_are_refused()
    {
        const std::pair<const char*, const char*> cases[] = {
            {"{\"properties\": {\"a\": {\"type\": \"string\", \"pattern\": \"^x(?=y)\"}}}", "/properties/a: 'pattern': '(?' groups"},
            {"{\"properties\": {\"a\": {\"type\": \"string\", \"pattern\": \"^x\", \"maxLength\": 3}}}", "'maxLength' beside 'pattern'"},
            {"{\"properties\": {\"a\": {\"type\": \"string\", \"pattern\": \"^x\", \"minLength\": 2}}}", "'minLength' beside 'pattern'"},
            {"{\"properties\": {\"a\": {\"type\": \"string\", \"pattern\": \"^$\", \"minLength\": 1}}}", "/properties/a: no value satisfies"},
            {"{\"properties\": {\"a\": {\"pattern\": 5}}}", "/properties/a/pattern: is not a string"},
            {"{\"type\": \"object\", \"properties\": {\"n\": {\"type\": \"integer\", \"multipleOf\": 2}}}", "/properties/n: 'multipleOf'"},
            {"{\"properties\": {\"n\": {\"type\": \"integer\", \"minimum\": 5, \"maximum\": 3}}}", "/properties/n: no value satisfies"},
            {"{\"properties\": {\"n\": {\"type\": \"integer\", \"minimum\": 0.2, \"maximum\": 0.8}}}", "/properties/n: no value satisfies"},
            {"{\"properties\": {\"n\": {\"type\": \"number\", \"minimum\": 1, \"exclusiveMaximum\": 1}}}", "/properties/n: no value satisfies"},
            {"{\"properties\": {\"n\": {\"type\": \"number\", \"minimum\": \"5\"}}}", "/properties/n/minimum: is not a number"},
            {"{\"properties\": {\"d\": {\"type\": \"string\", \"format\": \"date\", \"maxLength\": 8}}}", "beside 'format' \"date\""},
            {"{\"properties\": {\"e\": {\"enum\": [10, 20, \"x\"], \"maximum\": 5, \"format\": \"uuid\"}}, \"required\": [\"e\"]}",
             "/properties/e: no value satisfies"},
            {"{\"type\": \"integer\"}", "top level may be a number"},
            {"{\"anyOf\": [{\"type\": \"object\"}, {\"enum\": [1, 2]}]}", "top level may be a number"},
            {"{}", "top level may be a number"},
            {"{\"type\": \"array\", \"minItems\": 3, \"maxItems\": 2}", "no value satisfies"},
            {"{\"type\": \"object\", \"properties\": {\"e\": {\"enum\": []}}, \"required\": [\"e\"]}", "no value satisfies"},
            {"{\"$ref\": \"#/definitions/a\", \"definitions\": {\"a\": {\"type\": \"object\", \"properties\": {\"b\": {\"$ref\": \"#/definitions/a\"}}, \"required\": [\"b\"]}}}",
             "no value satisfies"},
            {"{\"type\": \"object\", \"properties\": {\"a\": {\"$ref\": \"#/$defs/missing\"}}}", "names nothing"},
            {"{\"type\": \"object\", \"properties\": {\"a\": {\"$ref\": \"https://example.com/x.json\"}}}", "not a reference within"},
            {"{\"type\": \"object\", \"properties\": {\"a\": {}}, \"additionalProperties\": true}", "additionalProperties"},
            {"{\"type\": \"array\", \"prefixItems\": [{\"type\": \"string\"}], \"items\": [{\"type\": \"string\"}]}", "beside 'prefixItems'"},
            {"{\"type\": \"array\", \"prefixItems\": {\"type\": \"string\"}}", "/prefixItems: is not a list of schemas"},
            {"{\"type\": \"array\", \"prefixItems\": [{\"type\": \"string\"}, false], \"minItems\": 2}", "/prefixItems/1: is false"},
            {"{\"allOf\": [{\"type\": \"object\"}, {\"required\": [\"a\"]}]}", "allOf"},
            {"{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"date\"}}}", "'date' is not a JSON Schema type"},
            {"{\"type\": \"object\", \"properties\": {\"a\": false}}", "is false"},
            {"{\"type\": \"array\", \"uniqueItems\": true}", "uniqueItems"},
            {"{\"$ref\": \"#\", \"type\": \"object\"}", "beside"},
        };
        for (const auto& [text, says] : cases) {
            try {
                compiled(text);
                QFAIL((std::string("accepted: ") + text).c_str());
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(says) != std::string::npos, (std::string(text) + " -> " + e.what()).c_str());
                QVERIFY2(std::string(e.what()).rfind("JSON schema at /", 0) == 0, e.what());
            }
        }
        // Annotations and other formats are read past; uniqueItems false and a boolean schema are fine.
        compiled("{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"title\": \"T\", \"type\": \"object\","
                     " \"properties\": {\"d\": {\"type\": \"string\", \"format\": \"email\", \"description\": \"who\"},"
                     " \"u\": {\"type\": \"array\", \"uniqueItems\": false}, \"b\": true}, \"x-vendor\": 1}");
    }

    // Schemas that nest and repeat themselves stay small to read and to step: a union of
    // unions is one choice among values, and paths that begin alike are followed up to a bound.
    void hostile_schemas_stay_bounded()
    {
        // 16 levels, each a choice of the next one 64 times: 64^16 ways to reach one string.
        ordered defs = ordered::object();
        for (int level = 0; level < 16; ++level) {
            ordered choices = ordered::array();
            for (int i = 0; i < 64; ++i)
                choices.push_back({{"$ref", "#/$defs/l" + std::to_string(level + 1)}});
            defs["l" + std::to_string(level)] = {{"anyOf", choices}};
        }
        defs["l16"] = {{"type", "string"}};
        const auto deep = JsonSchema::compile({{"$defs", defs}, {"$ref", "#/$defs/l0"}});
        JsonSchemaPrefix prefix(deep);
        QVERIFY(prefix.feed("\"ok\""));
        QVERIFY(prefix.complete());

        ordered many = ordered::array();
        for (int i = 0; i < 300; ++i)
            many.push_back({{"const", "v" + std::to_string(i)}});
        try {
            JsonSchema::compile({{"anyOf", many}});
            QFAIL("300 alternatives were taken");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("more than 256 alternatives") != std::string::npos, e.what());
        }

        // A value is begun only where the containers it needs fit: {"a": {"b": {"c": {}}}} needs
        // four, so not 29 arrays deep; a schema that needs 33 is refused.
        const auto nested = JsonSchema::compile(ordered::parse(
            "{\"type\": \"array\", \"items\": {\"anyOf\": [{\"$ref\": \"#\"}, {\"$ref\": \"#/$defs/d\"}]}, \"$defs\": {\"d\": "
            "{\"properties\": {\"a\": {\"properties\": {\"b\": {\"properties\": {\"c\": {\"type\": \"object\"}}, "
            "\"required\": [\"c\"]}}, \"required\": [\"b\"]}}, \"required\": [\"a\"]}}}"));
        JsonSchemaPrefix shallow(nested), far(nested);
        QVERIFY(shallow.feed(std::string(28, '[')));
        QVERIFY(shallow.accepts("{\"a\":{\"b\":{\"c\":{}}}}"));
        QVERIFY(far.feed(std::string(29, '[')));
        QVERIFY(!far.accepts("{"));
        QVERIFY(far.feed(std::string(3, '[')));  // 32 arrays
        QVERIFY(!far.accepts("["));
        QVERIFY(far.feed(std::string(32, ']')));
        QVERIFY(far.complete());
        // Where the nesting left holds no value of an optional property, its key is not begun
        // (else the colon would be a dead end); where it holds no value of a tuple's next item,
        // no comma comes before it.
        const std::string needs_three = "{\"type\": \"object\", \"properties\": {\"x\": {\"type\": \"object\", \"properties\": "
                           "{\"y\": {\"type\": \"object\"}}, \"required\": [\"y\"]}}, \"required\": [\"x\"]}";
        const auto nested_objects = JsonSchema::compile(ordered::parse(
            std::string("{\"$ref\": \"#/$defs/o\", \"$defs\": {\"o\": {\"type\": \"object\", \"properties\": {\"a\": ") +
            "{\"$ref\": \"#/$defs/o\"}, \"deep\": {\"$ref\": \"#/$defs/d\"}}}, \"d\": " + needs_three + "}}"));
        JsonSchemaPrefix in_objects(nested_objects);
        std::string outer;
        for (int i = 0; i < 28; ++i)
            outer += "{\"a\":";
        QVERIFY(in_objects.feed(outer + "{"));                               // 29 objects
        QVERIFY(in_objects.accepts("\"deep\":{\"x\":{\"y\":{}}}"));  // 32 containers
        QVERIFY(in_objects.feed("\"a\":{"));                               // 30
        QVERIFY(!in_objects.accepts("\"d"));
        QVERIFY(in_objects.accepts("}"));
        const auto tuples = JsonSchema::compile(ordered::parse(
            std::string("{\"$ref\": \"#/$defs/t\", \"$defs\": {\"t\": {\"type\": \"array\", \"prefixItems\": ") +
            "[{\"type\": \"integer\"}, {\"$ref\": \"#/$defs/d\"}], \"items\": {\"$ref\": \"#/$defs/t\"}}, \"d\": " + needs_three + "}}"));
        JsonSchemaPrefix in_tuples(tuples);
        std::string levels;
        for (int i = 0; i < 29; ++i)
            levels += "[1,{\"x\":{\"y\":{}}},";
        QVERIFY(in_tuples.feed(levels + "[1"));  // 30 arrays: the object after 1 would make 33
        QVERIFY(!in_tuples.accepts(","));
        QVERIFY(in_tuples.accepts("]"));

        ordered needs = {{"type", "object"}};
        for (int i = 0; i < 32; ++i)
            needs = {{"properties", {{"x", needs}}}, {"required", {"x"}}};
        try {
            JsonSchema::compile(needs);
            QFAIL("a schema needing 33 containers was taken");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("nested deeper than 32") != std::string::npos, e.what());
        }

        // 200 objects that begin alike, each with its own key: a reply is one of them whole.
        ordered objects = ordered::array();
        for (int i = 0; i < 200; ++i)
            objects.push_back({{"type", "object"},
                               {"properties", {{"k" + std::to_string(i), {{"type", "integer"}}}}},
                               {"required", {"k" + std::to_string(i)}}});
        const auto alike = JsonSchema::compile({{"type", "array"}, {"items", {{"anyOf", objects}}}});
        JsonSchemaPrefix array(alike);
        QVERIFY(array.feed("[{\"k"));
        // The first kMaxPaths alternatives are followed (a valid reply is one of them).
        QVERIFY(array.accepts("1\": 5}]"));
        QVERIFY(array.accepts("15\": 5}]"));
        QVERIFY(!array.accepts("199\": 5}]"));
    }

    void the_limits_a_model_is_held_to()
    {
        const auto s = compiled("{\"type\": \"object\", \"properties\": {\"s\": {\"type\": \"string\", \"maxLength\": 2},"
                     " \"i\": {\"type\": \"integer\"}, \"a\": {\"type\": \"array\", \"maxItems\": 1}}}");
        JsonSchemaPrefix prefix(s);
        QVERIFY(prefix.feed("{\"s\": \"\\uD83D\\uDE00"));  // one character, escaped as a pair
        QCOMPARE(prefix.string_room(), std::optional<uint32_t>(1));  // of two
        QVERIFY(prefix.feed("\xC3\xA9"));
        QVERIFY(!prefix.accepts("x"));  // a third character
        QVERIFY(!prefix.accepts("\\n"));
        QVERIFY(prefix.feed("\", \"i\": -0"));
        QVERIFY(!prefix.accepts(".5"));  // an integer
        QVERIFY(!prefix.accepts("1"));   // no digit after a leading zero
        QVERIFY(!prefix.accepts(", \"s\""));  // each property once, in order
        QVERIFY(prefix.feed(", \"a\": [1"));
        QVERIFY(!prefix.accepts(","));  // maxItems
        QVERIFY(prefix.feed("]}"));
        QVERIFY(prefix.complete());
        JsonSchemaPrefix before(s);
        QVERIFY(!before.accepts("{\"i\": 1, \"s\""));  // the schema's order
        QVERIFY(!before.accepts("{\"x\""));            // no other keys

        // Digits: 16 before the point, 16 after it, 3 in the exponent.
        JsonSchemaPrefix numbers(compiled("{\"type\": \"array\", \"items\": {\"type\": \"number\"}}"));
        const std::string sixteen(16, '7');
        QVERIFY(numbers.feed("[-" + sixteen));
        QVERIFY(!numbers.accepts("7"));
        QVERIFY(numbers.feed("." + sixteen));
        QVERIFY(!numbers.accepts("7"));
        QVERIFY(numbers.feed("e-123"));
        QVERIFY(!numbers.accepts("4"));
        QVERIFY(numbers.feed(", 0." + sixteen + "E+001]"));
        QVERIFY(numbers.complete());
    }

    // Bounds and formats refuse at the character that leaves them, and a number in range ends.
    void bounds_and_formats_as_a_model_writes_them()
    {
        // Without a type: bounds make a number, a format a string.
        const auto s = compiled("{\"type\": \"object\", \"properties\": {\"t\": {\"format\": \"time\"},"
                                " \"n\": {\"maximum\": 5, \"exclusiveMinimum\": -2}, \"i\": {\"type\": \"integer\", \"minimum\": 10}}}");
        JsonSchemaPrefix prefix(s);
        QVERIFY(!prefix.accepts("{\"t\": 5"));
        QVERIFY(!prefix.accepts("{\"t\": \"24"));
        QVERIFY(!prefix.accepts("{\"t\": \"12:00:00\""));  // no offset yet
        QVERIFY(!prefix.accepts("{\"t\": \"12:00\\u003a00Z\""));  // escaped
        QVERIFY(prefix.feed("{\"t\": \"12:00:00.5+01:00\", \"n\": "));
        QCOMPARE(prefix.string_room(), std::optional<uint32_t>());
        QVERIFY(!prefix.accepts("6"));
        QVERIFY(!prefix.accepts("-3"));
        QVERIFY(!prefix.accepts("-2,"));
        QVERIFY(!prefix.accepts("5.1"));
        QVERIFY(!prefix.accepts("1e0"));  // no exponent in a bounded number
        QVERIFY(prefix.accepts("-1.99,"));
        QVERIFY(prefix.accepts("5.0,"));
        QVERIFY(prefix.feed("-0, \"i\": 1"));
        QVERIFY(!prefix.accepts("}"));  // 1 < 10
        QVERIFY(!prefix.accepts(".5"));
        QVERIFY(prefix.feed("0}"));
        QVERIFY(prefix.complete());

        // A pattern makes a string; its characters are matched as they are decoded.
        JsonSchemaPrefix patterned(compiled("{\"properties\": {\"p\": {\"pattern\": \"^\\\\d+\\\\n?$\"}}}"));
        QVERIFY(!patterned.accepts("{\"p\": 5"));
        QVERIFY(patterned.feed("{\"p\": \"12"));
        QCOMPARE(patterned.string_room(), std::optional<uint32_t>());
        QVERIFY(!patterned.accepts("a"));
        QVERIFY(!patterned.accepts("\\u0033"));  // \u escapes are not written in a patterned string
        QVERIFY(!patterned.accepts("\\t"));
        QVERIFY(patterned.accepts("\\n\"}"));
        QVERIFY(!patterned.accepts("\\n3"));
        QVERIFY(patterned.feed("3\"}"));
        QVERIFY(patterned.complete());
        // minLength 1 beside a pattern: not empty.
        JsonSchemaPrefix nonempty(compiled("{\"properties\": {\"p\": {\"pattern\": \"^\\\\d*$\", \"minLength\": 1}}}"));
        QVERIFY(nonempty.feed("{\"p\": \""));
        QVERIFY(!nonempty.accepts("\""));
        QVERIFY(nonempty.accepts("7\"}"));
    }

    // The constraint's walk over the vocabulary in byte order allows exactly the tokens that
    // trying each one allows: tokens sharing beginnings, unions whose alternatives begin alike.
    void the_mask_allows_exactly_what_can_follow()
    {
        std::vector<std::string> tokens;
        for (int b = 0; b < 256; ++b)
            tokens.emplace_back(1, static_cast<char>(b));
        for (const char* t : {"{\"", "{\"kind", "{\"kind\":", "\"kind\": \"", "\"cat\"", "\"ca", "\"car", "\"car\"", "\"car\",",
                              "\"wheels\"", "\": ", "\":", "12", "1", "null", "nu", "},", "}]", "]}", "[{", "  ", " \"", "owns",
                              "\"owns\": [", "\"best\": null}", "dog", "\"legs\": 4}", "", "\xC3", "\xC3\xA9", "ab", "abc",
                              "abcd", "\xC3\xA9\xC3\xA9", "x\"", "\\n", "\"s\": \"", "\"t\":"})
            tokens.emplace_back(t);
        const auto vocabulary = std::make_shared<const JsonVocabulary>(tokens);
        // Unions whose alternatives begin alike; strings with a bound (the fast path counts
        // characters) and without.
        const std::string bounded = "{\"type\": \"object\", \"properties\": {\"s\": {\"type\": \"string\", \"maxLength\": 4},"
                                    " \"t\": {\"type\": [\"string\", \"null\"], \"minLength\": 2}}}";
        const std::pair<const char*, std::string> cases[] = {
            {kSchemas[1], "{\"owns\": [{\"kind\": \"car\", \"wheels\": 4}, {\"kind\":\"cat\",\"legs\":4}], \"best\": {\"kind\": \"dog\"}}"},
            {kSchemas[1], "{ \"owns\": [ ], \"best\":\n  null\n}"},
            {bounded.c_str(), "{\"s\": \"a\xC3\xA9\\nb\", \"t\": \"abcd\xC3\xA9x\"}"},
            {kSchemas[5], "{\"age\": 12, \"score\": -1.25, \"born\": \"2024-02-29\", \"alarm\": \"23:59:59Z\", "
                          "\"code\": \"AB-123\", \"quote\": \"\\\"ab\\/c\\\"\", \"level\": 5}"},
        };
        for (const auto& [schema_text, text] : cases) {
            const auto s = compiled(schema_text);
            JsonConstraint constraint(vocabulary, s);
            for (size_t at = 0; at < text.size(); ++at) {
                std::vector<float> logits(tokens.size() + 2, 1.0f);
                constraint.mask(logits);
                JsonSchemaPrefix state(s);
                QVERIFY(state.feed(text.substr(0, at)));
                for (size_t id = 0; id < logits.size(); ++id) {
                    const bool allowed = id < tokens.size() && !tokens[id].empty() && state.accepts(tokens[id]);
                    QVERIFY2((logits[id] == 1.0f) == allowed,
                             (text.substr(0, at) + " | token '" + (id < tokens.size() ? tokens[id] : "") + "'").c_str());
                }
                QVERIFY(constraint.accept(static_cast<uint8_t>(text[at])));
            }
            QVERIFY(constraint.complete());
        }
    }

    // A model that knows nothing of JSON, sampled freely under a schema: every reply is the
    // beginning of a valid document, and the ones that end are valid.
    void stories_write_only_valid_documents()
    {
        PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
        const auto model = Model::open(path, BackendPreference::Cpu);
        const auto vocabulary = JsonVocabulary::of(model->tokenizer());
        BatchScheduler scheduler(model->backend(), {16, 0, 8192});
        std::map<int, std::pair<size_t, std::string>> replies;
        std::map<int, FinishReason> ends;
        for (size_t k = 0; k < std::size(kSchemas); ++k)
            for (int i = 0; i < 3; ++i) {
                BatchRequest r;
                r.prompt = {model->tokenizer().bos_id()};
                for (const int32_t id : model->tokenizer().encode("Once upon a time"))
                    r.prompt.push_back(id);
                r.max_new_tokens = 80;
                r.sampling.seed = 70 + k * 3 + static_cast<uint64_t>(i);
                r.sampling.temperature = 1.5f;
                r.sampling.top_k = 0;
                r.sampling.min_p = 0;
                r.json.emplace(vocabulary, compiled(kSchemas[k]));
                replies[scheduler.submit(r)] = {k, ""};
            }
        while (!scheduler.idle())
            for (const BatchEvent& e : scheduler.step()) {
                if (e.token)
                    replies[e.id].second += model->tokenizer().token_bytes(*e.token);
                if (e.finished)
                    ends[e.id] = e.reason;
            }
        int whole = 0;
        for (const auto& [id, reply] : replies) {
            const auto& [k, text] = reply;
            JsonSchemaPrefix prefix(compiled(kSchemas[k]));
            QVERIFY2(prefix.feed(text), text.c_str());
            QCOMPARE(ends[id] == FinishReason::EndOfSequence, prefix.complete());
            if (prefix.complete()) {
                ++whole;
                QVERIFY2(reference(ordered::parse(kSchemas[k]), text).valid, text.c_str());
            }
        }
        qInfo("%d of %zu replies wrote a whole document within 80 tokens", whole, replies.size());
    }
};

QTEST_APPLESS_MAIN(JsonSchemaTest)
#include "test_json_schema.moc"
