#include "generate/json_schema_prefix.h"

#include <algorithm>

#include "util/error.h"

namespace pyramid {
namespace {

using Kind = JsonSchema::Kind;

enum FrameKind : uint8_t { kRoot, kObject, kMap, kArray, kString, kNumber, kLiteral };

// Root
enum : uint8_t { kStart, kDone };
// Object and Map (KeyString: a Map's key is a String frame above it)
enum : uint8_t { kOpen, kKey, kKeyString, kColon, kValue, kAfter, kComma };
// Array: kOpen, kValue (after a comma), kAfter
// String
enum : uint8_t { kText, kEscape, kUnicode, kUtf8 };
// Number
enum : uint8_t { kMinus, kZero, kInteger, kPoint, kFraction, kExponent, kExponentSign, kExponentDigits };

constexpr uint32_t kFreeKey = 0xFFFFFFFF;  // a String frame's node for a map's key: any string

// JSON's short escapes (after the backslash) and what each stands for.
constexpr std::string_view kShortEscapes = "\"\\/bfnrt", kShortEscaped = "\"\\/\b\f\n\r\t";

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

// A String frame's `extra`: a pending high surrogate (low 16 bits), the next UTF-8
// continuation byte's range (the upper bytes).
uint32_t surrogate_of(uint32_t extra) { return extra & 0xFFFF; }

} // namespace

// Steps the paths of one state by one byte into another state's memory.
class JsonSchemaPrefix::Stepper {
public:
    Stepper(const JsonSchema& schema, JsonSchemaPrefix& out) : schema_(schema), out_(out) { out.refused_.clear(); }

    // A copy of `from` (a path of another state) in a new slot of `out`; its index. The
    // slot's memory is reused.
    size_t copy(const Path& from)
    {
        const size_t slot = grow();
        out_.paths_[slot] = from;
        return slot;
    }

    // The same for a path of `out` itself.
    size_t copy_slot(size_t from)
    {
        const size_t slot = grow();  // may move paths_, so `from` is read after
        out_.paths_[slot] = out_.paths_[from];
        return slot;
    }

    // The path in `slot` after byte `c`; false: refused (the slot is then garbage).
    bool byte(size_t slot, char c)
    {
        for (;;) {
            Path& p = out_.paths_[slot];
            Frame& f = p.frames.back();
            switch (f.kind) {
            case kRoot:
                if (f.phase == kDone)
                    return false;
                return is_space(c) ? whitespace(p, c) : start_value(slot, schema_.root, c);
            case kObject: return object(slot, c);
            case kMap: return map(slot, c);
            case kArray: return array(slot, c);
            case kString: return string(p, c);
            case kNumber: {
                const int r = number(p, c);
                if (r >= 0)
                    return r == 1;
                break;  // the number ended before `c`
            }
            case kLiteral: {
                const int r = literal(p, c);
                if (r >= 0)
                    return r == 1;
                break;  // the literal ended before `c`
            }
            default: return false;
            }
            p.frames.pop_back();
            child_done(p);
        }
    }

private:
    size_t grow()
    {
        if (out_.live_ == out_.paths_.size())
            out_.paths_.emplace_back();
        return out_.live_++;
    }

    // None, one space, or line breaks and then an indent (JsonSchemaPrefix's contract).
    static bool whitespace(Path& p, char c)
    {
        if (c == '\n') {
            if (p.blanks > 0 || p.line_breaks == kMaxLineBreaks)
                return false;
            ++p.line_breaks;
            return true;
        }
        if (c == '\r')
            return false;
        if (p.line_breaks == 0) {
            if (c != ' ' || p.blanks > 0)
                return false;
            p.blanks = 1;
            return true;
        }
        return ++p.blanks <= kMaxIndent;
    }

    // The frame on top of `p` was popped: its value is whole.
    static void child_done(Path& p)
    {
        Frame& f = p.frames.back();
        switch (f.kind) {
        case kRoot: f.phase = kDone; break;
        case kObject: f.phase = kAfter; break;
        case kMap: f.phase = f.phase == kKeyString ? kColon : kAfter; break;
        case kArray:
            f.phase = kAfter;
            ++f.count;
            break;
        default: break;
        }
    }

    // White space came since the last token (a comma may not follow it).
    static bool spaced(const Path& p) { return p.line_breaks > 0 || p.blanks > 0; }

    static void close(Path& p)
    {
        p.frames.pop_back();
        --p.depth;
        child_done(p);
    }

    static void push(Path& p, uint32_t node, uint8_t kind, uint8_t phase)
    {
        Frame f;
        f.node = node;
        f.kind = kind;
        f.phase = phase;
        p.frames.push_back(f);
    }

    // A value of `node` begins with `c`, in the path in `slot`.
    bool can_begin(uint32_t node, char c) const
    {
        const JsonSchema::Node& n = schema_.nodes[node];
        switch (n.kind) {
        case Kind::Object:
        case Kind::Map: return c == '{';
        case Kind::Array: return c == '[';
        case Kind::String: return c == '"';
        case Kind::Number:
        case Kind::Integer:
            return (c == '-' || is_digit(c)) && (!n.range.bounded() || n.range.admits_prefix(std::string_view(&c, 1)));
        case Kind::Literal: {
            const auto at = std::lower_bound(n.literals.begin(), n.literals.end(), std::string(1, c));
            return at != n.literals.end() && (*at)[0] == c;
        }
        case Kind::Union: return false;
        }
        return false;
    }

    bool start_value(size_t slot, uint32_t node, char c)
    {
        const JsonSchema::Node& n = schema_.nodes[node];
        Path& p = out_.paths_[slot];
        switch (n.kind) {
        case Kind::Union:
            // Each alternative that can begin with `c` goes on as a path of its own, as many
            // as the state keeps (the alternatives are no unions: json_schema.h).
            for (const uint32_t alternative : n.alternatives) {
                if (!can_begin(alternative, c))
                    continue;
                if (forks_ == kMaxPaths)
                    break;
                ++forks_;
                const size_t fork = copy_slot(slot);
                if (!start_value(fork, alternative, c))
                    out_.refused_.push_back(fork);
            }
            return false;  // this slot itself is replaced by the forks
        case Kind::Object:
        case Kind::Map:
        case Kind::Array:
            if (c != (n.kind == Kind::Array ? '[' : '{') || p.depth + n.min_depth > JsonSchema::kMaxDepth)
                return false;
            push(p, node, n.kind == Kind::Object ? kObject : n.kind == Kind::Map ? kMap : kArray, kOpen);
            ++p.depth;
            return true;
        case Kind::String:
            if (c != '"')
                return false;
            push(p, node, kString, kText);
            p.scalar.clear();
            return true;
        case Kind::Number:
        case Kind::Integer:
            if (!can_begin(node, c))
                return false;
            push(p, node, kNumber, c == '-' ? kMinus : c == '0' ? kZero : kInteger);
            p.frames.back().count = c == '-' ? 0 : 1;
            p.scalar.assign(n.range.bounded() ? 1 : 0, c);
            return true;
        case Kind::Literal: {
            push(p, node, kLiteral, 0);
            Frame& f = p.frames.back();
            f.lo = 0;
            f.hi = static_cast<uint32_t>(n.literals.size());
            return literal(p, c) == 1;
        }
        }
        return false;
    }

    // The candidates [lo, hi) of sorted `texts(i)` that match `c` at `offset` (they all share
    // the bytes before it, so those that match are consecutive).
    template <typename Text>
    static bool narrow(uint32_t& lo, uint32_t& hi, uint16_t offset, char c, Text text)
    {
        uint32_t first = lo;
        while (first < hi && (text(first).size() <= offset || text(first)[offset] != c))
            ++first;
        uint32_t last = first;
        while (last < hi && text(last).size() > offset && text(last)[offset] == c)
            ++last;
        lo = first;
        hi = last;
        return lo < hi;
    }

    // 1: taken; 0: refused; -1: the literal ended before `c` (c belongs to what follows).
    int literal(Path& p, char c) const
    {
        Frame& f = p.frames.back();
        const std::vector<std::string>& texts = schema_.nodes[f.node].literals;
        const auto text = [&](uint32_t i) -> const std::string& { return texts[i]; };
        uint32_t lo = f.lo, hi = f.hi;
        if (!narrow(lo, hi, f.offset, c, text))
            return texts[f.lo].size() == f.offset ? -1 : 0;  // a whole one sorts first
        f.lo = lo;
        f.hi = hi;
        ++f.offset;
        if (hi - lo == 1 && texts[lo].size() == f.offset) {  // whole, and nothing longer matches
            p.frames.pop_back();
            child_done(p);
        }
        return 1;
    }

    bool object(size_t slot, char c)
    {
        Path& p = out_.paths_[slot];
        Frame& f = p.frames.back();
        const JsonSchema::Node& n = schema_.nodes[f.node];
        const auto size = static_cast<uint32_t>(n.properties.size());
        const auto start_key = [&] {
            f.phase = kKey;
            f.lo = 0;
            f.hi = size;
            f.offset = 1;  // every key begins with its quote
            return true;
        };
        // A property's value fits in the nesting left (a required one always does: the object
        // was begun only where they all fit); a key may begin where one of those that may come
        // next does.
        const auto fits = [&](uint32_t property) {
            return p.depth + schema_.nodes[n.properties[property].node].min_depth <= JsonSchema::kMaxDepth;
        };
        const auto a_key_fits = [&] {
            for (uint32_t i = f.count; i < size && i <= n.next_required[f.count]; ++i)
                if (fits(i))
                    return true;
            return false;
        };
        // After a value, white space only where the object may close (a comma may not follow it).
        if (f.phase != kKey && f.phase != kColon && is_space(c) &&
            (f.phase != kAfter || n.next_required[f.count] == size))
            return whitespace(p, c);
        switch (f.phase) {
        case kOpen:
            if (c == '}' && n.next_required[0] == size) {
                close(p);
                return true;
            }
            return c == '"' && a_key_fits() && start_key();
        case kComma: return c == '"' && start_key();
        case kKey: {
            const auto key = [&](uint32_t i) -> const std::string& { return n.properties[n.keys_sorted[i]].key; };
            if (!narrow(f.lo, f.hi, f.offset, c, key))
                return false;
            ++f.offset;
            // Keys at the next position up to the first required one still due may come.
            const uint32_t last = std::min(n.next_required[f.count], size - 1);
            uint32_t whole = size;
            bool any = false;
            for (uint32_t i = f.lo; i < f.hi; ++i) {
                const uint32_t property = n.keys_sorted[i];
                if (property < f.count || property > last || !fits(property))
                    continue;
                any = true;
                if (n.properties[property].key.size() == f.offset)
                    whole = property;
            }
            if (!any)
                return false;
            if (whole != size) {  // a whole key: nothing longer matches (its quote ends it)
                f.phase = kColon;
                f.extra = whole;
                f.count = whole + 1;
            }
            return true;
        }
        case kColon:
            if (c != ':')
                return false;
            f.phase = kValue;
            return true;
        case kValue: return start_value(slot, n.properties[f.extra].node, c);
        case kAfter:
            if (c == ',' && f.count < size && !spaced(p) && a_key_fits()) {
                f.phase = kComma;
                return true;
            }
            if (c == '}' && n.next_required[f.count] == size) {
                close(p);
                return true;
            }
            return false;
        default: return false;
        }
    }

    bool map(size_t slot, char c)
    {
        Path& p = out_.paths_[slot];
        Frame& f = p.frames.back();
        if (is_space(c) && f.phase != kColon)
            return whitespace(p, c);
        const auto start_key = [&] {
            f.phase = kKeyString;
            push(p, kFreeKey, kString, kText);
            return true;
        };
        switch (f.phase) {
        case kOpen:
        case kAfter:
            if (c == '}') {
                close(p);
                return true;
            }
            if (f.phase == kOpen)
                return c == '"' && start_key();
            if (c != ',' || spaced(p))
                return false;
            f.phase = kComma;
            return true;
        case kComma: return c == '"' && start_key();
        case kColon:
            if (c != ':')
                return false;
            f.phase = kValue;
            return true;
        case kValue: return start_value(slot, schema_.nodes[f.node].child, c);
        default: return false;
        }
    }

    bool array(size_t slot, char c)
    {
        Path& p = out_.paths_[slot];
        Frame& f = p.frames.back();
        const JsonSchema::Node& n = schema_.nodes[f.node];
        if (is_space(c) && (f.phase != kAfter || f.count >= n.min))  // as for an object
            return whitespace(p, c);
        switch (f.phase) {
        case kOpen:
            if (c == ']') {
                if (n.min > 0)
                    return false;
                close(p);
                return true;
            }
            return n.max > 0 && start_value(slot, JsonSchema::item(n, 0), c);
        case kValue: return start_value(slot, JsonSchema::item(n, f.count), c);
        case kAfter:
            // A comma only where the next item fits in the nesting left (a tuple's items differ).
            if (c == ',' && f.count < n.max && !spaced(p) &&
                p.depth + schema_.nodes[JsonSchema::item(n, f.count)].min_depth <= JsonSchema::kMaxDepth) {
                f.phase = kValue;
                return true;
            }
            if (c == ']' && f.count >= n.min) {
                close(p);
                return true;
            }
            return false;
        default: return false;
        }
    }

    // A string of a format: printable ASCII characters, unescaped (string_format.h).
    bool formatted_string(Path& p, char c, StringFormat format) const
    {
        if (c == '"') {
            if (!format_complete(format, p.scalar))
                return false;
            p.scalar.clear();
            p.frames.pop_back();
            child_done(p);
            return true;
        }
        const auto byte = static_cast<uint8_t>(c);
        if (byte < 0x20 || byte > 0x7E || c == '\\')
            return false;
        p.scalar.push_back(c);
        ++p.frames.back().count;
        return format_admits_prefix(format, p.scalar);
    }

    // A string of a pattern: its characters (printable ASCII, the short escapes decoded) in
    // `scalar`, each taken where the pattern can still match (string_pattern.h).
    bool patterned_string(Path& p, char c, const StringPattern& pattern) const
    {
        Frame& f = p.frames.back();
        const auto take = [&](char decoded) {
            p.scalar.push_back(decoded);
            ++f.count;
            f.phase = kText;
            return pattern.admits_prefix(p.scalar);
        };
        if (f.phase == kEscape) {
            const size_t at = kShortEscapes.find(c);
            return at != std::string_view::npos && take(kShortEscaped[at]);
        }
        if (c == '"') {
            if (f.count < schema_.nodes[f.node].min || !pattern.matches(p.scalar))
                return false;
            p.scalar.clear();
            p.frames.pop_back();
            child_done(p);
            return true;
        }
        if (c == '\\') {  // some escape must lead on
            f.phase = kEscape;
            for (const char decoded : kShortEscaped) {
                p.scalar.push_back(decoded);
                const bool on = pattern.admits_prefix(p.scalar);
                p.scalar.pop_back();
                if (on)
                    return true;
            }
            return false;
        }
        const auto byte = static_cast<uint8_t>(c);
        return byte >= 0x20 && byte < 0x7F && take(c);
    }

    bool string(Path& p, char c) const
    {
        Frame& f = p.frames.back();
        if (f.node != kFreeKey && schema_.nodes[f.node].format)
            return formatted_string(p, c, *schema_.nodes[f.node].format);
        if (f.node != kFreeKey && schema_.nodes[f.node].pattern)
            return patterned_string(p, c, *schema_.nodes[f.node].pattern);
        const auto byte = static_cast<uint8_t>(c);
        const uint32_t min = f.node == kFreeKey ? 0 : schema_.nodes[f.node].min;
        const uint32_t max = f.node == kFreeKey ? JsonSchema::kUnbounded : schema_.nodes[f.node].max;
        const uint32_t surrogate = surrogate_of(f.extra);
        switch (f.phase) {
        case kText: {
            if (c == '"') {
                if (surrogate != 0 || f.count < min)
                    return false;
                p.frames.pop_back();
                child_done(p);
                return true;
            }
            if (surrogate != 0 && c != '\\')  // a high surrogate's \u needs its low half
                return false;
            if (byte < 0x20)
                return false;
            if (surrogate == 0) {  // a character begins (a low surrogate's escape ends one)
                if (f.count >= max)
                    return false;
                ++f.count;
            }
            if (c == '\\') {
                f.phase = kEscape;
                return true;
            }
            if (byte < 0x80)
                return true;
            // A multi-byte character's lead byte, and the range of its first continuation byte
            // (which rules out overlong forms, surrogates and code points past U+10FFFF).
            uint32_t low = 0x80, high = 0xBF;
            if (byte >= 0xC2 && byte <= 0xDF) {
                f.offset = 1;
            } else if (byte >= 0xE0 && byte <= 0xEF) {
                f.offset = 2;
                if (byte == 0xE0)
                    low = 0xA0;
                if (byte == 0xED)
                    high = 0x9F;
            } else if (byte >= 0xF0 && byte <= 0xF4) {
                f.offset = 3;
                if (byte == 0xF0)
                    low = 0x90;
                if (byte == 0xF4)
                    high = 0x8F;
            } else {
                return false;
            }
            f.extra = low << 16 | high << 24;
            f.phase = kUtf8;
            return true;
        }
        case kUtf8: {
            const uint32_t low = f.extra >> 16 & 0xFF, high = f.extra >> 24;
            if (byte < low || byte > high)
                return false;
            f.extra = 0x80u << 16 | 0xBFu << 24;
            if (--f.offset == 0) {
                f.phase = kText;
                f.extra = 0;
            }
            return true;
        }
        case kEscape:
            if (c == 'u') {
                f.phase = kUnicode;
                f.offset = 4;
                f.lo = 0;
                return true;
            }
            if (surrogate != 0)
                return false;
            switch (c) {
            case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
                f.phase = kText;
                return true;
            default: return false;
            }
        case kUnicode: {
            const int digit = hex_value(c);
            if (digit < 0)
                return false;
            f.lo = f.lo << 4 | static_cast<uint32_t>(digit);
            --f.offset;
            // UTF-16 in escapes: a high surrogate is followed by a low one, which stands nowhere
            // else; refused at the first digit that decides it (else the digits left could
            // only make what is refused: a dead end).
            const uint32_t rest = 4u * f.offset;
            const uint32_t lowest = f.lo << rest, highest = lowest | ((1u << rest) - 1);
            const bool can_be_low = highest >= 0xDC00 && lowest <= 0xDFFF;
            const bool must_be_low = lowest >= 0xDC00 && highest <= 0xDFFF;
            if (surrogate != 0 ? !can_be_low : must_be_low)
                return false;
            if (f.offset > 0)
                return true;
            const bool high = f.lo >= 0xD800 && f.lo <= 0xDBFF;
            f.extra = high ? f.lo : 0;
            f.lo = 0;
            f.phase = kText;
            return true;
        }
        default: return false;
        }
    }

    // 1: taken; 0: refused; -1: the number ended before `c`. A bounded number's text is kept
    // and checked against its range at each character and at its end.
    int number(Path& p, char c) const
    {
        Frame& f = p.frames.back();
        const JsonSchema::Node& n = schema_.nodes[f.node];
        if (!n.range.bounded())
            return number_syntax(f, c);
        if (c == 'e' || c == 'E')
            return 0;
        const int r = number_syntax(f, c);
        if (r == -1) {
            if (!n.range.contains(p.scalar))
                return 0;
            p.scalar.clear();
        }
        if (r == 1) {
            p.scalar.push_back(c);
            if (!n.range.admits_prefix(p.scalar))
                return 0;
        }
        return r;
    }

    // The same for JSON's grammar alone, with the digits bounded (json_schema_prefix.h);
    // `count` is the digits of the part being read.
    int number_syntax(Frame& f, char c) const
    {
        const bool integer = schema_.nodes[f.node].kind == Kind::Integer;
        const auto to = [&](uint8_t phase, uint32_t digits) {
            f.phase = phase;
            f.count = digits;
            return 1;
        };
        const auto another = [&](size_t most) { return ++f.count <= most ? 1 : 0; };
        switch (f.phase) {
        case kMinus: return is_digit(c) ? to(c == '0' ? kZero : kInteger, 1) : 0;
        case kZero:
        case kInteger:
            if (f.phase == kInteger && is_digit(c))
                return another(NumberRange::kMaxWholeDigits);
            if (!integer && c == '.')
                return to(kPoint, 0);
            if (!integer && (c == 'e' || c == 'E'))
                return to(kExponent, 0);
            return is_digit(c) ? 0 : -1;  // no digit after a leading zero
        case kPoint: return is_digit(c) ? to(kFraction, 1) : 0;
        case kFraction:
            if (is_digit(c))
                return another(NumberRange::kMaxFractionDigits);
            return c == 'e' || c == 'E' ? to(kExponent, 0) : -1;
        case kExponent:
            if (c == '+' || c == '-')
                return to(kExponentSign, 0);
            [[fallthrough]];
        case kExponentSign: return is_digit(c) ? to(kExponentDigits, 1) : 0;
        case kExponentDigits: return is_digit(c) ? another(kMaxExponentDigits) : -1;
        default: return 0;
        }
    }

    const JsonSchema& schema_;
    JsonSchemaPrefix& out_;
    size_t forks_ = 0;  // paths begun at a union in this step
};

JsonSchemaPrefix::JsonSchemaPrefix(std::shared_ptr<const JsonSchema> schema) : schema_(std::move(schema))
{
    if (!schema_)
        throw Error("a JSON schema is needed");
    paths_.resize(1);
    paths_[0].frames.push_back(Frame{});  // kRoot, kStart
    live_ = 1;
}

bool JsonSchemaPrefix::step_into(char c, JsonSchemaPrefix& next) const
{
    if (next.schema_ != schema_)
        next.schema_ = schema_;
    next.live_ = 0;
    Stepper stepper(*schema_, next);
    std::vector<size_t>& dead = next.refused_;
    for (size_t i = 0; i < live_; ++i) {
        const size_t slot = stepper.copy(paths_[i]);
        if (!stepper.byte(slot, c))
            dead.push_back(slot);
    }
    // Keep the live paths, each once, up to kMaxPaths.
    std::sort(dead.begin(), dead.end());
    size_t kept = 0;
    for (size_t i = 0, d = 0; i < next.live_; ++i) {
        if (d < dead.size() && dead[d] == i) {
            ++d;
            continue;
        }
        Path& p = next.paths_[i];
        if (!is_space(c))
            p.line_breaks = p.blanks = 0;
        bool seen = false;
        for (size_t j = 0; j < kept && !seen; ++j)
            seen = next.paths_[j] == p;
        if (seen || kept == kMaxPaths)
            continue;
        if (kept != i)
            std::swap(next.paths_[kept], p);
        ++kept;
    }
    next.live_ = kept;
    return kept > 0;
}

bool JsonSchemaPrefix::feed(char c)
{
    return feed(std::string_view(&c, 1));
}

bool JsonSchemaPrefix::feed(std::string_view bytes)
{
    JsonSchemaPrefix next(schema_);  // the two states take turns: one allocation per call
    for (const char c : bytes) {
        if (!step_into(c, next))
            return false;
        std::swap(*this, next);
    }
    return true;
}

bool JsonSchemaPrefix::accepts(std::string_view bytes) const
{
    JsonSchemaPrefix a = *this, b = *this;
    for (const char c : bytes) {
        if (!a.step_into(c, b))
            return false;
        std::swap(a, b);
    }
    return true;
}

std::optional<uint32_t> JsonSchemaPrefix::string_room() const
{
    uint32_t room = 0;
    for (size_t i = 0; i < live_; ++i) {
        const Frame& f = paths_[i].frames.back();
        if (f.kind != kString || f.phase != kText || surrogate_of(f.extra) != 0 ||
            (f.node != kFreeKey && (schema_->nodes[f.node].format || schema_->nodes[f.node].pattern)))
            return std::nullopt;
        const uint32_t max = f.node == kFreeKey ? JsonSchema::kUnbounded : schema_->nodes[f.node].max;
        room = std::max(room, max == JsonSchema::kUnbounded ? max : max - f.count);
    }
    if (live_ == 0)
        return std::nullopt;
    return room;
}

bool JsonSchemaPrefix::complete() const
{
    for (size_t i = 0; i < live_; ++i)
        if (paths_[i].frames.size() == 1 && paths_[i].frames[0].phase == kDone)
            return true;
    return false;
}

} // namespace pyramid
