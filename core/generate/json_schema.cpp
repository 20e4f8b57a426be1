#include "generate/json_schema.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/json_input.h"
#include "util/utf8.h"

namespace pyramid {
namespace {

using json = nlohmann::ordered_json;
using Kind = JsonSchema::Kind;
using Node = JsonSchema::Node;

// Keywords that restrict values in ways the reply is not held to: refused, not ignored.
const std::set<std::string> kUnsupported = {
    "patternProperties", "propertyNames", "minProperties", "maxProperties", "multipleOf",
    "contains", "minContains", "maxContains", "unevaluatedProperties", "unevaluatedItems", "not", "if", "then", "else",
    "dependentRequired", "dependentSchemas", "dependencies", "$dynamicRef", "$recursiveRef",
};

// The keywords that say what a value may be (the rest are annotations).
const std::set<std::string> kAssertions = {
    "type", "properties", "required", "additionalProperties", "items", "minItems", "maxItems",
    "minLength", "maxLength", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "uniqueItems",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "prefixItems", "additionalItems", "pattern",
};

// The format `s` names that strings are held to, if any.
std::optional<StringFormat> format_of(const json& s)
{
    const auto it = s.find("format");
    return it != s.end() && it->is_string() ? string_format(it->get<std::string>()) : std::nullopt;
}

std::string canonical(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::strict); }

class Compiler {
public:
    explicit Compiler(const json& document) : document_(document) {}

    uint32_t compile(const json& s, const std::string& where, int nesting)
    {
        if (nesting > JsonSchema::kMaxNesting)
            fail(where, "nests deeper than " + std::to_string(JsonSchema::kMaxNesting) + " levels");
        if (s.is_boolean()) {
            if (!s.get<bool>())
                fail(where, "is false: no value satisfies it");
            return any();
        }
        if (!s.is_object())
            fail(where, "is " + json_excerpt(nlohmann::json::parse(s.dump())) + ", not a schema (an object or a boolean)");
        for (const auto& [key, value] : s.items()) {
            if (kUnsupported.count(key))
                fail(where, "'" + key + "' is not supported (it would be ignored, and the reply could break it)");
            if (key == "uniqueItems" && value != false)
                fail(where, "'uniqueItems' is not supported (it would be ignored, and the reply could break it)");
        }
        // The keywords that stand alone: what sits beside them can only be annotations.
        for (const char* alone : {"$ref", "allOf", "anyOf", "oneOf"}) {
            if (!s.contains(alone))
                continue;
            for (const auto& [key, value] : s.items())
                if (key != alone && kAssertions.count(key) && key != "uniqueItems")
                    fail(where, std::string("'") + alone + "' beside '" + key + "' is not supported");
            return alone == std::string("$ref") ? reference(s[alone], where, nesting)
                                                : alternatives(s[alone], where + "/" + alone, alone, nesting);
        }
        if (s.contains("enum") || s.contains("const"))
            return literals(s, where);

        std::vector<std::string> types;
        if (const auto it = s.find("type"); it != s.end()) {
            if (it->is_string()) {
                types.push_back(it->get<std::string>());
            } else if (it->is_array() && !it->empty()) {
                for (const auto& t : *it) {
                    if (!t.is_string())
                        fail(where + "/type", "is not a type name");
                    types.push_back(t.get<std::string>());
                }
            } else {
                fail(where + "/type", "is neither a type name nor a list of them");
            }
        } else if (s.contains("properties") || s.contains("required") || s.contains("additionalProperties")) {
            types = {"object"};
        } else if (s.contains("items") || s.contains("prefixItems") || s.contains("minItems") || s.contains("maxItems")) {
            types = {"array"};
        } else if (s.contains("minLength") || s.contains("maxLength") || s.contains("pattern") || format_of(s)) {
            types = {"string"};
        } else if (s.contains("minimum") || s.contains("maximum") || s.contains("exclusiveMinimum") ||
                   s.contains("exclusiveMaximum")) {
            types = {"number"};
        } else {
            return any();
        }
        std::vector<uint32_t> nodes;
        for (const std::string& type : types)
            nodes.push_back(typed(s, type, where, nesting));
        if (nodes.size() == 1)
            return nodes[0];
        Node u;
        u.kind = Kind::Union;
        u.alternatives = std::move(nodes);
        return add(std::move(u), where);
    }

    // A union's alternatives become the values it may be, with nested unions and references
    // followed (so a value begins with one choice among them, however the schema nests), and a
    // union of one value is replaced by it wherever it is named. Returns the root.
    uint32_t flatten(uint32_t root)
    {
        std::vector<uint8_t> seen(schema.nodes.size());
        for (size_t i = 0; i < schema.nodes.size(); ++i) {
            if (schema.nodes[i].kind != Kind::Union)
                continue;
            std::fill(seen.begin(), seen.end(), 0);
            std::vector<uint32_t> values, pending = schema.nodes[i].alternatives;
            while (!pending.empty()) {
                const uint32_t n = pending.back();
                pending.pop_back();
                if (seen[n])
                    continue;
                seen[n] = 1;
                if (schema.nodes[n].kind == Kind::Union)
                    pending.insert(pending.end(), schema.nodes[n].alternatives.begin(), schema.nodes[n].alternatives.end());
                else
                    values.push_back(n);
            }
            if (values.size() > JsonSchema::kMaxAlternatives)
                fail(where_[i], "more than " + std::to_string(JsonSchema::kMaxAlternatives) + " alternatives");
            std::sort(values.begin(), values.end());
            schema.nodes[i].alternatives = std::move(values);
        }
        const auto direct = [&](uint32_t n) {
            const Node& u = schema.nodes[n];
            return u.kind == Kind::Union && u.alternatives.size() == 1 ? u.alternatives[0] : n;
        };
        for (Node& n : schema.nodes) {
            n.child = direct(n.child);
            for (uint32_t& t : n.tuple)
                t = direct(t);
            for (auto& p : n.properties)
                p.node = direct(p.node);
        }
        return direct(root);
    }

    // Every node can be written within the nesting a reply may have (else a reply could walk
    // into a dead end): the fewest containers a value of each needs, itself included, none
    // where it cannot be written at all. And the top level cannot be a number.
    void check(uint32_t root)
    {
        constexpr uint32_t kNever = JsonSchema::kUnbounded;
        for (Node& n : schema.nodes)
            n.min_depth = kNever;
        for (bool changed = true; changed;) {
            changed = false;
            for (Node& n : schema.nodes) {
                uint32_t depth = kNever;
                const auto below = [&](uint32_t child) {  // one container above `child`
                    const uint32_t d = schema.nodes[child].min_depth;
                    return d == kNever ? kNever : d + 1;
                };
                switch (n.kind) {
                case Kind::Object:
                    depth = 1;
                    for (const auto& p : n.properties)
                        if (p.required)
                            depth = std::max(depth, below(p.node));
                    break;
                case Kind::Map: depth = 1; break;
                case Kind::Array:
                    if (n.min <= n.max) {  // the items it must have
                        depth = 1;
                        for (uint32_t i = 0; i < n.min && depth != kNever; ++i) {
                            depth = std::max(depth, below(JsonSchema::item(n, i)));
                            if (i >= n.tuple.size())
                                break;  // the rest are alike
                        }
                    }
                    break;
                case Kind::String: depth = n.min <= n.max ? 0 : kNever; break;
                case Kind::Number:
                case Kind::Integer: depth = n.range.empty() ? kNever : 0; break;
                case Kind::Literal: depth = n.literals.empty() ? kNever : 0; break;
                case Kind::Union:
                    for (const uint32_t a : n.alternatives)
                        depth = std::min(depth, schema.nodes[a].min_depth);
                    break;
                default: depth = 0; break;
                }
                depth = std::min<uint32_t>(depth, kNever);
                if (depth < n.min_depth) {
                    n.min_depth = depth;
                    changed = true;
                }
            }
        }
        for (size_t i = 0; i < schema.nodes.size(); ++i)
            if (schema.nodes[i].min_depth == kNever)
                fail(where_[i], "no value satisfies it (within the bounds it sets, or by recursing without end)");
        if (schema.nodes[root].min_depth > JsonSchema::kMaxDepth)
            fail("", "a value needs containers nested deeper than " + std::to_string(JsonSchema::kMaxDepth));
        if (starts_number(root))
            fail("", "the top level may be a number, which has no last character to end the reply on");
    }

    JsonSchema schema;

private:
    [[noreturn]] static void fail(const std::string& where, const std::string& what)
    {
        throw Error("JSON schema at " + (where.empty() ? std::string("/") : where) + ": " + what);
    }

    uint32_t add(Node n, const std::string& where)
    {
        if (schema.nodes.size() >= JsonSchema::kMaxNodes)
            fail(where, "the schema is larger than " + std::to_string(JsonSchema::kMaxNodes) + " parts");
        schema.nodes.push_back(std::move(n));
        where_.push_back(where);
        return static_cast<uint32_t>(schema.nodes.size() - 1);
    }

    uint32_t any()
    {
        if (any_)
            return *any_;
        const uint32_t u = add(Node{}, "(any value)");
        any_ = u;
        std::vector<uint32_t> alternatives;
        for (const Kind kind : {Kind::Map, Kind::Array, Kind::String, Kind::Number}) {
            Node n;
            n.kind = kind;
            n.child = u;
            alternatives.push_back(add(std::move(n), "(any value)"));
        }
        Node words;
        words.kind = Kind::Literal;
        words.literals = {"false", "null", "true"};
        alternatives.push_back(add(std::move(words), "(any value)"));
        schema.nodes[u].alternatives = std::move(alternatives);
        return u;
    }

    uint32_t reference(const json& ref, const std::string& where, int nesting)
    {
        if (!ref.is_string() || ref.get<std::string>().empty() || ref.get<std::string>()[0] != '#')
            fail(where + "/$ref", "is not a reference within this schema (\"#\" or \"#/$defs/NAME\")");
        const std::string pointer = ref.get<std::string>().substr(1);
        if (const auto it = refs_.find(pointer); it != refs_.end())
            return it->second;
        const json* target = nullptr;
        try {
            target = &document_.at(json::json_pointer(pointer));
        } catch (const json::exception&) {
            fail(where + "/$ref", "'" + ref.get<std::string>() + "' names nothing in the schema");
        }
        // The node is known before its target is read, so that a recursive reference finds it.
        const uint32_t placeholder = add(Node{}, where);
        refs_.emplace(pointer, placeholder);
        const uint32_t node = compile(*target, pointer, nesting + 1);
        schema.nodes[placeholder].alternatives = {node};
        return placeholder;
    }

    uint32_t alternatives(const json& list, const std::string& where, const std::string& keyword, int nesting)
    {
        if (!list.is_array() || list.empty())
            fail(where, "is not a list of schemas");
        if (keyword == "allOf" && list.size() != 1)
            fail(where, "'allOf' of more than one schema is not supported");
        Node u;
        u.kind = Kind::Union;
        for (size_t i = 0; i < list.size(); ++i)
            u.alternatives.push_back(compile(list[i], where + "/" + std::to_string(i), nesting + 1));
        return add(std::move(u), where);
    }

    uint32_t literals(const json& s, const std::string& where)
    {
        if (s.contains("enum") && s.contains("const"))
            fail(where, "'enum' beside 'const' is not supported");
        const bool is_enum = s.contains("enum");
        const json& values = is_enum ? s["enum"] : json::array({s["const"]});
        if (!values.is_array())
            fail(where + "/enum", "is not a list of values");
        std::vector<std::string> types;
        if (const auto it = s.find("type"); it != s.end()) {
            if (it->is_string())
                types.push_back(it->get<std::string>());
            else if (it->is_array())
                for (const auto& t : *it)
                    if (t.is_string())
                        types.push_back(t.get<std::string>());
        }
        Node n;
        n.kind = Kind::Literal;
        size_t bytes = 0;
        const Siblings beside = siblings(s, where);
        for (const auto& v : values) {
            // Values of the other types than `type` names cannot be written.
            if (!types.empty() && std::none_of(types.begin(), types.end(), [&](const std::string& t) { return is_a(v, t); }))
                continue;
            if (!beside.allow(v))
                continue;
            n.literals.push_back(canonical(v));
            bytes += n.literals.back().size();
            if (bytes > JsonSchema::kMaxLiteralBytes)
                fail(where, "the values of 'enum' take more than " + std::to_string(JsonSchema::kMaxLiteralBytes) + " bytes");
        }
        std::sort(n.literals.begin(), n.literals.end());
        n.literals.erase(std::unique(n.literals.begin(), n.literals.end()), n.literals.end());
        return add(std::move(n), where);
    }

    static bool is_a(const json& v, const std::string& type)
    {
        if (type == "object")
            return v.is_object();
        if (type == "array")
            return v.is_array();
        if (type == "string")
            return v.is_string();
        if (type == "number")
            return v.is_number();
        if (type == "integer")
            return v.is_number_integer() || (v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<int64_t>(v.get<double>())));
        if (type == "boolean")
            return v.is_boolean();
        return type == "null" && v.is_null();
    }

    static uint32_t count(const json& s, const char* keyword, const std::string& where, uint32_t otherwise)
    {
        const auto it = s.find(keyword);
        if (it == s.end())
            return otherwise;
        if (!it->is_number_unsigned() && !(it->is_number_float() && it->get<double>() >= 0 &&
                                           it->get<double>() == static_cast<double>(static_cast<uint64_t>(it->get<double>()))))
            fail(where + "/" + keyword, "is not a whole number >= 0");
        const double v = it->get<double>();
        return v >= JsonSchema::kUnbounded ? JsonSchema::kUnbounded - 1 : static_cast<uint32_t>(v);
    }

    uint32_t typed(const json& s, const std::string& type, const std::string& where, int nesting)
    {
        Node n;
        if (type == "object") {
            const auto properties = s.find("properties");
            const auto extra = s.find("additionalProperties");
            const bool declared = properties != s.end() || s.contains("required");
            if (!declared) {
                if (extra != s.end() && *extra == false) {
                    n.kind = Kind::Object;  // {} only
                    n.next_required = {0};
                    return add(std::move(n), where);
                }
                n.kind = Kind::Map;
                n.child = extra == s.end() ? any() : compile(*extra, where + "/additionalProperties", nesting + 1);
                return add(std::move(n), where);
            }
            if (extra != s.end() && *extra != false)
                fail(where + "/additionalProperties",
                     "keys beside the declared properties are not supported (false, or leave it out)");
            n.kind = Kind::Object;
            if (properties != s.end()) {
                if (!properties->is_object())
                    fail(where + "/properties", "is not an object of schemas");
                for (const auto& [key, value] : properties->items())
                    n.properties.push_back({canonical(json(key)), compile(value, where + "/properties/" + key, nesting + 1), false});
            }
            if (const auto required = s.find("required"); required != s.end()) {
                if (!required->is_array())
                    fail(where + "/required", "is not a list of property names");
                for (const auto& name : *required) {
                    if (!name.is_string())
                        fail(where + "/required", "is not a list of property names");
                    const std::string key = canonical(name);
                    auto p = std::find_if(n.properties.begin(), n.properties.end(), [&](const auto& q) { return q.key == key; });
                    if (p == n.properties.end()) {  // required without a schema: any value
                        n.properties.push_back({key, any(), false});
                        p = n.properties.end() - 1;
                    }
                    p->required = true;
                }
            }
            for (uint32_t i = 0; i < n.properties.size(); ++i)
                n.keys_sorted.push_back(i);
            std::sort(n.keys_sorted.begin(), n.keys_sorted.end(),
                      [&](uint32_t a, uint32_t b) { return n.properties[a].key < n.properties[b].key; });
            const auto size = static_cast<uint32_t>(n.properties.size());
            n.next_required.assign(size + 1, size);
            for (uint32_t p = size; p-- > 0;)
                n.next_required[p] = n.properties[p].required ? p : n.next_required[p + 1];
        } else if (type == "array") {
            n.kind = Kind::Array;
            n.min = count(s, "minItems", where, 0);
            n.max = count(s, "maxItems", where, JsonSchema::kUnbounded);
            // A tuple: 2020-12's prefixItems then items, or draft 7's items list then
            // additionalItems.
            const auto prefix = s.find("prefixItems");
            const auto items = s.find("items");
            const bool draft7 = items != s.end() && items->is_array();
            if (prefix != s.end() && draft7)
                fail(where + "/items", "a list of schemas beside 'prefixItems'");
            const char* first = draft7 ? "items" : "prefixItems";
            const char* rest = draft7 ? "additionalItems" : "items";
            if (const auto list = s.find(first); list != s.end()) {
                if (!list->is_array())
                    fail(where + "/" + first, "is not a list of schemas");
                for (size_t i = 0; i < list->size(); ++i)
                    n.tuple.push_back(compile((*list)[i], where + "/" + first + "/" + std::to_string(i), nesting + 1));
            }
            const auto after = s.find(rest);
            if (after != s.end() && *after == false) {
                n.max = std::min<uint32_t>(n.max, static_cast<uint32_t>(n.tuple.size()));
                n.child = any();  // never reached
            } else {
                n.child = after == s.end() ? any() : compile(*after, where + "/" + rest, nesting + 1);
            }
        } else if (type == "string") {
            n.kind = Kind::String;
            n.min = count(s, "minLength", where, 0);
            n.max = count(s, "maxLength", where, JsonSchema::kUnbounded);
            n.format = format_of(s);
            // A format's strings have lengths of their own; bounds that would cut among them
            // could leave a string nowhere to go.
            if (n.format && (n.min > format_min_length(*n.format) || n.max < format_max_length(*n.format)))
                fail(where, "'minLength' or 'maxLength' beside 'format' \"" + s["format"].get<std::string>() +
                                "\" is not supported");
            n.pattern = pattern(s, where);
            // A pattern is matched by PCRE2 alone: bounds or a format beside it could leave a
            // string that the pattern allows nowhere to go. But for minLength 1 (pydantic's
            // constr(min_length=1, pattern=...)): an empty string is refused at its quote, and
            // a first character that the pattern can go on from is all that must exist.
            if (n.pattern && (n.format || n.min > 1 || n.max != JsonSchema::kUnbounded))
                fail(where, std::string("'") + (n.format ? "format" : n.min > 1 ? "minLength" : "maxLength") +
                                "' beside 'pattern' is not supported (but minLength 1)");
            if (n.pattern && n.min == 1 && !n.pattern->admits_a_character())
                fail(where, "no value satisfies it (the pattern matches no string of a character or more)");
        } else if (type == "number" || type == "integer") {
            n.kind = type == "number" ? Kind::Number : Kind::Integer;
            n.range = range(s, where, n.kind == Kind::Integer);
        } else if (type == "boolean" || type == "null") {
            n.kind = Kind::Literal;
            n.literals = type == "null" ? std::vector<std::string>{"null"} : std::vector<std::string>{"false", "true"};
        } else {
            fail(where + "/type", "'" + type + "' is not a JSON Schema type");
        }
        return add(std::move(n), where);
    }

    // minimum, maximum, exclusiveMinimum, exclusiveMaximum: numbers, or (draft 4) booleans
    // making minimum and maximum exclusive. Where two bounds a side are given, the stricter.
    static NumberRange range(const json& s, const std::string& where, bool integer)
    {
        const auto side = [&](const char* inclusive, const char* exclusive, bool lower) -> std::optional<NumberRange::Bound> {
            const auto number = [&](const char* keyword) -> std::optional<double> {
                const auto it = s.find(keyword);
                if (it == s.end() || it->is_boolean())
                    return std::nullopt;
                if (!it->is_number())
                    fail(where + "/" + keyword, "is not a number");
                return it->get<double>();
            };
            const auto text = [&](const char* keyword) { return canonical(s[keyword]); };
            const std::optional<double> at = number(inclusive), past = number(exclusive);
            const bool draft4 = s.contains(exclusive) && s[exclusive].is_boolean() && s[exclusive].get<bool>();
            if (at && (!past || (lower ? *at > *past : *at < *past)))
                return NumberRange::Bound{text(inclusive), draft4};
            if (past)
                return NumberRange::Bound{text(exclusive), true};
            return std::nullopt;
        };
        try {
            return NumberRange(side("minimum", "exclusiveMinimum", true), side("maximum", "exclusiveMaximum", false), integer);
        } catch (const Error& e) {
            fail(where, e.what());
        }
    }

    static std::shared_ptr<const StringPattern> pattern(const json& s, const std::string& where)
    {
        const auto it = s.find("pattern");
        if (it == s.end())
            return nullptr;
        if (!it->is_string())
            fail(where + "/pattern", "is not a string");
        try {
            return std::make_shared<const StringPattern>(it->get<std::string>());
        } catch (const Error& e) {
            fail(where, e.what());
        }
    }

    // What applies beside an enum or const to the values of each type (bounds, lengths,
    // format, pattern), read once for all its values.
    struct Siblings {
        NumberRange range;
        uint32_t min = 0, max = JsonSchema::kUnbounded;
        std::optional<StringFormat> format;
        std::shared_ptr<const StringPattern> pattern;

        bool allow(const json& v) const
        {
            if (v.is_number())
                return !range.bounded() || range.contains(canonical(v));
            if (!v.is_string())
                return true;
            const std::string text = v.get<std::string>();
            const size_t characters = utf8_code_points(text);
            return characters >= min && characters <= max && (!format || format_complete(*format, text)) &&
                   (!pattern || pattern->matches(text));
        }
    };

    static Siblings siblings(const json& s, const std::string& where)
    {
        return {range(s, where, false), count(s, "minLength", where, 0), count(s, "maxLength", where, JsonSchema::kUnbounded),
                format_of(s), pattern(s, where)};
    }

    // After flatten(): a union's alternatives are no unions.
    bool starts_number(uint32_t node) const
    {
        const Node& n = schema.nodes[node];
        switch (n.kind) {
        case Kind::Number:
        case Kind::Integer: return true;
        case Kind::Literal:
            return std::any_of(n.literals.begin(), n.literals.end(),
                               [](const std::string& l) { return l[0] == '-' || (l[0] >= '0' && l[0] <= '9'); });
        case Kind::Union:
            return std::any_of(n.alternatives.begin(), n.alternatives.end(),
                               [&](uint32_t a) { return starts_number(a); });
        default: return false;
        }
    }

    const json& document_;
    std::map<std::string, uint32_t> refs_;  // JSON pointer -> node
    std::vector<std::string> where_;        // each node's place, for messages
    std::optional<uint32_t> any_;
};

} // namespace

std::shared_ptr<const JsonSchema> JsonSchema::compile(const nlohmann::ordered_json& schema)
{
    Compiler compiler(schema);
    const uint32_t root = compiler.flatten(compiler.compile(schema, "", 0));
    compiler.check(root);
    compiler.schema.root = root;
    return std::make_shared<const JsonSchema>(std::move(compiler.schema));
}

std::shared_ptr<const JsonSchema> JsonSchema::any_object()
{
    return compile(nlohmann::ordered_json{{"type", "object"}});
}

} // namespace pyramid
