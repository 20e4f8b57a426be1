#include "generate/json_prefix.h"

namespace pyramid {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

int hex_value(char c)
{
    if (is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

} // namespace

bool JsonPrefix::feed(char byte)
{
    const JsonPrefix before = *this;
    if (!step(byte)) {
        *this = before;
        return false;
    }
    if (!is_space(byte))
        whitespace_run_ = 0;
    return true;
}

bool JsonPrefix::feed(std::string_view bytes)
{
    for (const char c : bytes)
        if (!feed(c))
            return false;
    return true;
}

bool JsonPrefix::accepts(std::string_view bytes) const
{
    JsonPrefix next = *this;  // no undo needed: the copy is thrown away
    for (const char c : bytes) {
        if (!next.step(c))
            return false;
        if (!is_space(c))
            next.whitespace_run_ = 0;
    }
    return true;
}

bool JsonPrefix::whitespace()
{
    return ++whitespace_run_ <= kMaxWhitespace;
}

bool JsonPrefix::start_value(char c)
{
    switch (c) {
    case '{':
    case '[':
        if (depth_ == kMaxDepth)
            return false;
        open_[depth_++] = c;
        state_ = c == '{' ? State::FirstKeyOrEnd : State::FirstValueOrEnd;
        return true;
    case '"':
        state_ = State::String;
        string_is_key_ = false;
        return true;
    case '-': state_ = State::Minus; return true;
    case '0': state_ = State::Zero; return true;
    case 't': literal_ = "rue"; break;
    case 'f': literal_ = "alse"; break;
    case 'n': literal_ = "ull"; break;
    default:
        if (!is_digit(c))
            return false;
        state_ = State::Integer;
        return true;
    }
    state_ = State::Literal;
    return true;
}

bool JsonPrefix::end_value(char c)
{
    state_ = State::AfterValue;
    if (is_space(c))
        return whitespace();
    if (c == ',') {
        state_ = open_[depth_ - 1] == '{' ? State::Key : State::ValueStart;
        return true;
    }
    if ((c == '}' && open_[depth_ - 1] == '{') || (c == ']' && open_[depth_ - 1] == '[')) {
        --depth_;
        state_ = depth_ == 0 ? State::Done : State::AfterValue;
        return true;
    }
    return false;
}

bool JsonPrefix::step(char c)
{
    const auto byte = static_cast<uint8_t>(c);
    switch (state_) {
    case State::Start:
        if (is_space(c))
            return whitespace();
        if (c != '{')
            return false;
        return start_value(c);
    case State::ValueStart:
        return is_space(c) ? whitespace() : start_value(c);
    case State::FirstKeyOrEnd:
    case State::Key:
        if (is_space(c))
            return whitespace();
        if (c == '"') {
            state_ = State::String;
            string_is_key_ = true;
            return true;
        }
        return state_ == State::FirstKeyOrEnd && c == '}' && end_value(c);
    case State::Colon:
        if (is_space(c))
            return whitespace();
        if (c != ':')
            return false;
        state_ = State::ValueStart;
        return true;
    case State::FirstValueOrEnd:
        if (is_space(c))
            return whitespace();
        return c == ']' ? end_value(c) : start_value(c);
    case State::AfterValue:
        return end_value(c);
    case State::String:
        if (c == '"') {
            if (surrogate_ != 0)
                return false;
            state_ = string_is_key_ ? State::Colon : State::AfterValue;
            return true;
        }
        if (surrogate_ != 0 && c != '\\')  // a high surrogate's \u needs its low half
            return false;
        if (c == '\\') {
            state_ = State::Escape;
            return true;
        }
        if (byte < 0x20)
            return false;
        if (byte < 0x80)
            return true;
        // A multi-byte character's lead byte, and the range of its first continuation byte
        // (which rules out overlong forms, surrogates and code points past U+10FFFF).
        utf8_low_ = 0x80;
        utf8_high_ = 0xBF;
        if (byte >= 0xC2 && byte <= 0xDF) {
            pending_ = 1;
        } else if (byte >= 0xE0 && byte <= 0xEF) {
            pending_ = 2;
            if (byte == 0xE0)
                utf8_low_ = 0xA0;
            if (byte == 0xED)
                utf8_high_ = 0x9F;
        } else if (byte >= 0xF0 && byte <= 0xF4) {
            pending_ = 3;
            if (byte == 0xF0)
                utf8_low_ = 0x90;
            if (byte == 0xF4)
                utf8_high_ = 0x8F;
        } else {
            return false;
        }
        state_ = State::Utf8;
        return true;
    case State::Utf8:
        if (byte < utf8_low_ || byte > utf8_high_)
            return false;
        utf8_low_ = 0x80;
        utf8_high_ = 0xBF;
        if (--pending_ == 0)
            state_ = State::String;
        return true;
    case State::Escape:
        if (c == 'u') {
            state_ = State::Unicode;
            pending_ = 4;
            code_unit_ = 0;
            return true;
        }
        if (surrogate_ != 0)
            return false;
        switch (c) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
            state_ = State::String;
            return true;
        default: return false;
        }
    case State::Unicode: {
        const int digit = hex_value(c);
        if (digit < 0)
            return false;
        code_unit_ = static_cast<uint16_t>(code_unit_ << 4 | digit);
        if (--pending_ > 0)
            return true;
        // UTF-16 in escapes: a high surrogate is followed by a low one, which stands nowhere else.
        const bool high = code_unit_ >= 0xD800 && code_unit_ <= 0xDBFF;
        const bool low = code_unit_ >= 0xDC00 && code_unit_ <= 0xDFFF;
        if (surrogate_ != 0 ? !low : low)
            return false;
        surrogate_ = high ? code_unit_ : 0;
        state_ = State::String;
        return true;
    }
    case State::Literal:
        if (c != *literal_)
            return false;
        if (*++literal_ == '\0')
            state_ = State::AfterValue;
        return true;
    case State::Minus:
        if (!is_digit(c))
            return false;
        state_ = c == '0' ? State::Zero : State::Integer;
        return true;
    case State::Zero:
    case State::Integer:
        if (state_ == State::Integer && is_digit(c))
            return true;
        if (c == '.') {
            state_ = State::Point;
            return true;
        }
        if (c == 'e' || c == 'E') {
            state_ = State::Exponent;
            return true;
        }
        return end_value(c);
    case State::Point:
        if (!is_digit(c))
            return false;
        state_ = State::Fraction;
        return true;
    case State::Fraction:
        if (is_digit(c))
            return true;
        if (c == 'e' || c == 'E') {
            state_ = State::Exponent;
            return true;
        }
        return end_value(c);
    case State::Exponent:
        if (c == '+' || c == '-') {
            state_ = State::ExponentSign;
            return true;
        }
        [[fallthrough]];
    case State::ExponentSign:
        if (!is_digit(c))
            return false;
        state_ = State::ExponentDigits;
        return true;
    case State::ExponentDigits:
        return is_digit(c) || end_value(c);
    case State::Done:
        return false;
    }
    return false;
}

} // namespace pyramid
