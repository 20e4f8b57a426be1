#pragma once
// Reads a JSON text (RFC 8259) byte by byte and says, after every byte, whether what came so
// far can still be the beginning of a value of a schema (json_schema.h): what constrained
// decoding asks of each candidate token. The reply is complete when its top-level value is.
//
// Beyond the schema, for a model writing it:
// - containers nested deeper than kMaxDepth are refused (each step stays small), and a value
//   is begun only where the containers it needs fit under that bound (no dead ends);
// - white space only where formatted JSON has it (before the value, after { [ , : and before
//   } ]; not before a colon or a comma), and there nothing, one space, or a line break and an
//   indent of up to kMaxIndent spaces or tabs, as llama.cpp's JSON grammar bounds it: a small
//   model otherwise pads with blank lines until max_tokens, or strays into layouts such as a
//   colon on a line of its own;
// - strings hold valid UTF-8 (JSON texts are UTF-8), no control characters, and escaped
//   surrogates only in pairs; a string with a format holds its characters unescaped, one with
//   a pattern printable ASCII and the short escapes (string_pattern.h);
// - a number has at most 16 digits before its point, 16 after it and 3 in its exponent (as
//   llama.cpp's JSON grammar bounds them; a small model otherwise writes digits until its
//   tokens run out), and a number with bounds has no exponent (number_range.h).
//
// Where a schema allows several things that begin alike (anyOf of two objects; an enum of 1
// and 10), the reader follows each as a path of its own, up to kMaxPaths at once (the rest
// are dropped: what stays is still a valid reply).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "generate/json_schema.h"

namespace pyramid {

class JsonSchemaPrefix {
public:
    static constexpr int kMaxDepth = JsonSchema::kMaxDepth;
    static constexpr int kMaxLineBreaks = 1;
    static constexpr int kMaxIndent = 20;
    static constexpr size_t kMaxPaths = 16;
    static constexpr size_t kMaxExponentDigits = 3;

    explicit JsonSchemaPrefix(std::shared_ptr<const JsonSchema> schema);

    // Adds one byte; false (and the state unchanged) when no value of the schema begins with
    // what came so far plus it, or it came after the value was complete.
    bool feed(char byte);
    // feed() each byte in turn; false at the first refused one (the state is then that
    // after the bytes before it).
    bool feed(std::string_view bytes);
    // Whether feed(bytes) would take them all, without changing this state.
    bool accepts(std::string_view bytes) const;
    // `next` becomes this state after `byte`; false (and `next` unusable) when refused. Reuses
    // `next`'s memory: stepping a token's bytes through a few kept states allocates nothing.
    bool step_into(char byte, JsonSchemaPrefix& next) const;

    // Inside a string on every path, between characters and escapes: bytes that keep a string
    // going (no quote, backslash or control character; whole UTF-8 characters) change nothing
    // but the characters counted, and are taken while they fit. The characters the roomiest
    // path's string may still take (JsonSchema::kUnbounded without maxLength); none when some
    // path is elsewhere.
    std::optional<uint32_t> string_room() const;
    // The value is whole: nothing may follow.
    bool complete() const;

private:
    // One level of a path: the value being read, and where in it.
    struct Frame {
        uint32_t node = 0;
        uint8_t kind = 0;   // FrameKind
        uint8_t phase = 0;  // what the kind expects next
        uint16_t offset = 0;  // Literal, object key: bytes matched; String: bytes or digits pending
        uint32_t lo = 0, hi = 0;  // Literal, object key: the candidates (sorted) still matching
        uint32_t count = 0;  // Object: the next property's position; Array: items; String: characters;
                             // Number: digits of the part being read
        uint32_t extra = 0;  // Object: the key's property; String: a pending surrogate, UTF-8 range
        bool operator==(const Frame&) const = default;
    };
    struct Path {
        std::vector<Frame> frames;
        uint8_t line_breaks = 0;  // whitespace since the last token: line breaks, then
        uint8_t blanks = 0;       // spaces and tabs
        uint8_t depth = 0;  // containers open
        // The text so far of a number with bounds or a string with a format, which decide on
        // all of it (number_range.h, string_format.h); empty otherwise.
        std::string scalar;
        bool operator==(const Path&) const = default;
    };
    class Stepper;

    std::shared_ptr<const JsonSchema> schema_;
    std::vector<Path> paths_;
    size_t live_ = 0;  // paths_[0, live_) are the state; the rest is kept memory
    std::vector<size_t> refused_;  // step_into's scratch: the slots of refused paths
};

} // namespace pyramid
