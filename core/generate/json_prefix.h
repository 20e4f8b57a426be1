#pragma once
// Reads a JSON text (RFC 8259) byte by byte and says, after every byte, whether what came so
// far can still be the beginning of a JSON object: what constrained ("JSON mode") decoding asks
// of each candidate token. The whole document must be one object, as OpenAI's
// response_format {"type": "json_object"} asks; it is complete at its closing brace.
//
// Beyond the grammar, for a model writing it:
// - nesting deeper than kMaxDepth is refused (the state stays a small fixed-size value, so
//   trying a token is a copy and a few byte steps);
// - more than kMaxWhitespace whitespace bytes in a row outside strings are refused, as
//   llama.cpp's JSON grammar limits them: a small model otherwise pads with newlines until
//   max_tokens;
// - strings hold valid UTF-8 (JSON texts are UTF-8) and no control characters.
#include <array>
#include <cstdint>
#include <string_view>

namespace pyramid {

class JsonPrefix {
public:
    static constexpr int kMaxDepth = 32;
    static constexpr int kMaxWhitespace = 20;

    // Adds one byte; false (and the state unchanged) when no JSON object begins with what
    // came so far plus it, or it came after the object was complete.
    bool feed(char byte);
    // feed() each byte in turn; false at the first refused one (the state is then that
    // after the bytes before it).
    bool feed(std::string_view bytes);
    // Whether feed(bytes) would take them all, without changing this state.
    bool accepts(std::string_view bytes) const;
    // Inside a string, between characters and escapes: bytes that keep a string going (no
    // quote, backslash or control character; whole UTF-8 characters) leave the state as it is.
    bool in_string_text() const { return state_ == State::String && surrogate_ == 0; }
    // The object is whole: nothing may follow.
    bool complete() const { return state_ == State::Done; }

private:
    enum class State : uint8_t {
        Start,           // before the object ('{' after whitespace)
        ValueStart,      // a value is expected (after ':' or ',' in an array)
        FirstKeyOrEnd,   // after '{'
        Key,             // after ',' in an object
        Colon,           // after a key
        FirstValueOrEnd, // after '['
        AfterValue,      // ',' or the container's end
        String,
        Escape,          // after a backslash
        Unicode,         // in \uXXXX (pending_ hex digits left)
        Utf8,            // inside a multi-byte character (pending_ continuation bytes left)
        Literal,         // true, false, null (literal_: the letters left)
        Minus,           // number states
        Zero,
        Integer,
        Point,
        Fraction,
        Exponent,
        ExponentSign,
        ExponentDigits,
        Done,
    };

    bool step(char byte);
    bool start_value(char byte);
    bool end_value(char byte);  // the byte after a value (a number ends only at one)
    bool whitespace();  // one more in a row, if allowed

    State state_ = State::Start;
    bool string_is_key_ = false;
    uint8_t pending_ = 0;
    uint8_t utf8_low_ = 0x80, utf8_high_ = 0xBF;  // the next continuation byte's range
    uint16_t code_unit_ = 0;  // a \u escape's value so far
    uint16_t surrogate_ = 0;  // a high surrogate escaped, awaiting its low half; 0: none
    const char* literal_ = nullptr;
    uint8_t depth_ = 0;
    uint8_t whitespace_run_ = 0;
    std::array<char, kMaxDepth> open_{};  // '{' or '[' for each open container
};

} // namespace pyramid
