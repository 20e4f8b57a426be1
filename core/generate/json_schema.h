#pragma once
// A JSON Schema read into what constrained decoding needs: a graph of nodes, each saying what
// one JSON value may be, walked byte by byte by JsonSchemaPrefix (json_schema_prefix.h).
// JSON mode (OpenAI's {"type": "json_object"}) is the schema any_object().
//
// What is enforced (JSON Schema 2020-12 and draft 7 spellings; what OpenAI's structured
// outputs, Ollama's `format` and pydantic's model_json_schema() write):
//   type         a name or a list of names: object, array, string, number, integer, boolean,
//                null (a list is a choice among them)
//   properties, required   the reply writes the properties in the schema's order, each
//                required one, optional ones where the model chooses; additionalProperties
//                absent or false: no other keys (as OpenAI's strict mode and llama.cpp read
//                a schema with properties)
//   additionalProperties   without properties: true, absent or a schema: any keys, each value
//                of that schema (a map)
//   items, minItems, maxItems      minLength, maxLength (characters, as JSON Schema counts
//                them: code points)
//   prefixItems (draft 7: items as a list, additionalItems)   a tuple: its first items' schemas
//                in order, `items` (false: none) for the items after them
//   minimum, maximum, exclusiveMinimum, exclusiveMaximum (numbers, or draft 4's booleans):
//                a bounded number is written without an exponent (number_range.h)
//   format       date, time, date-time and uuid (string_format.h), which pydantic parses
//   pattern      a regular expression held to what PCRE2 can finish (string_pattern.h)
//   enum, const  the values as they are written canonically (no spaces, keys as given)
//   anyOf, oneOf (read as anyOf: alternatives of a union are told apart by the bytes), allOf
//                with one schema, $ref to "#", "#/$defs/NAME" or "#/definitions/NAME"
//                (recursion included)
//   true, {}     any JSON value
// Annotations are ignored: title, description, default, examples, other formats (email, uri,
// ...: an annotation in 2020-12), $schema, $id, $comment, and any keyword JSON Schema does not
// define. A keyword that would restrict values in a way this does not enforce (multipleOf, uniqueItems, not, if, contains, ...) is refused, not ignored: a reply that
// ignored it could break the caller's validation. The values of an enum or const are kept
// where the bounds, lengths and format beside them allow them.
//
// A schema whose top level can be a number is refused: a number has no last byte, so the
// reply could not end there. So is one no value satisfies (minItems > maxItems, an empty
// enum, required properties that recurse without end, nesting deeper than kMaxDepth).
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "generate/number_range.h"
#include "generate/string_format.h"
#include "generate/string_pattern.h"

namespace pyramid {

struct JsonSchema {
    enum class Kind : uint8_t {
        Object,   // declared properties, in order
        Map,      // any keys, every value of `child`
        Array,    // items of `child`
        String,
        Number,
        Integer,
        Literal,  // one of `literals`
        Union,    // one of `alternatives`
    };
    static constexpr uint32_t kUnbounded = std::numeric_limits<uint32_t>::max();
    // Bounds on what a request may ask for, so that reading it and every step stay small.
    static constexpr size_t kMaxNodes = 4096;
    static constexpr size_t kMaxLiteralBytes = 1 << 16;  // of an enum's values together
    static constexpr int kMaxNesting = 64;               // of the schema document
    static constexpr size_t kMaxAlternatives = 256;      // of a union, nested ones and refs followed
    static constexpr uint32_t kMaxDepth = 32;            // containers a reply nests

    struct Property {
        std::string key;  // as the reply writes it: JSON-encoded, quotes included
        uint32_t node = 0;
        bool required = false;
    };

    struct Node {
        Kind kind = Kind::Union;
        std::vector<Property> properties;  // Object, in the schema's order
        // Object: `properties` indices sorted by key bytes (a key being matched is a range).
        std::vector<uint32_t> keys_sorted;
        // Object: for each position p (0..size), the first required property at p or later;
        // properties.size() when none. Keys at p up to it may come next.
        std::vector<uint32_t> next_required;
        uint32_t child = 0;                         // Map: values; Array: items after `tuple`
        std::vector<uint32_t> tuple;                // Array: its first items, in order
        uint32_t min = 0, max = kUnbounded;         // Array: items; String: characters
        NumberRange range;                          // Number, Integer
        std::optional<StringFormat> format;         // String
        std::shared_ptr<const StringPattern> pattern;  // String
        std::vector<std::string> literals;          // Literal: canonical JSON texts, sorted
        std::vector<uint32_t> alternatives;         // Union: none of them a union, each once
        uint32_t min_depth = 0;  // the fewest containers a value of it needs, itself included
    };

    std::vector<Node> nodes;
    uint32_t root = 0;

    // The schema of an array's item at `position` (from 0).
    static uint32_t item(const Node& array, uint32_t position)
    {
        return position < array.tuple.size() ? array.tuple[position] : array.child;
    }

    // Throws pyramid::Error naming the place in the schema (a JSON pointer) and the keyword.
    // Ordered: properties are written in the schema's order.
    static std::shared_ptr<const JsonSchema> compile(const nlohmann::ordered_json& schema);
    // Any JSON object: JSON mode.
    static std::shared_ptr<const JsonSchema> any_object();
};

} // namespace pyramid
