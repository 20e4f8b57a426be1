#include "generate/string_pattern.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "util/error.h"

namespace pyramid {
namespace {

constexpr size_t kMaxPatternBytes = 1000;
// PCRE2's steps for one match (its default is 10 million): a step of a mask stays in
// microseconds however the pattern backtracks.
constexpr uint32_t kMatchLimit = 100000;

// The characters a reply writes in a patterned string: printable ASCII, and what the short
// escapes decode to.
constexpr std::string_view kEscaped = "\"\\/\b\f\n\r\t";

[[noreturn]] void refuse(const std::string& what)
{
    throw Error("'pattern': " + what);
}

pcre2_code* compile(std::string_view pattern)
{
    pcre2_compile_context* context = pcre2_compile_context_create(nullptr);
    pcre2_set_newline(context, PCRE2_NEWLINE_ANYCRLF);  // '.' stops at \r too, as ECMA-262's
    int error = 0;
    PCRE2_SIZE offset = 0;
    pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                     PCRE2_DOLLAR_ENDONLY | PCRE2_NEVER_BACKSLASH_C, &error, &offset, context);
    pcre2_compile_context_free(context);
    if (!code) {
        PCRE2_UCHAR message[256];
        pcre2_get_error_message(error, message, sizeof message);
        refuse("does not compile at offset " + std::to_string(offset) + ": " + reinterpret_cast<const char*>(message));
    }
    pcre2_jit_compile(code, PCRE2_JIT_COMPLETE | PCRE2_JIT_PARTIAL_HARD);  // without JIT only slower
    return code;
}

// PCRE2's answer for `text`: a match (>= 0), PCRE2_ERROR_PARTIAL, or no match (which a
// match that passes PCRE2's limits counts as: a pattern such as ^(a+)+$ may backtrack
// without end on a text it does not match). The match data (where PCRE2 writes the match's
// place, unread here) and the limits are scratch, one block a thread: a mask matches once per
// step of the vocabulary's walk, tens of thousands of times.
int match(const pcre2_code* code, std::string_view text, uint32_t options)
{
    struct Scratch {
        pcre2_match_data* data = pcre2_match_data_create(1, nullptr);
        pcre2_match_context* limits = [] {
            pcre2_match_context* context = pcre2_match_context_create(nullptr);
            pcre2_set_match_limit(context, kMatchLimit);
            pcre2_set_depth_limit(context, kMatchLimit);
            return context;
        }();
        ~Scratch()
        {
            pcre2_match_data_free(data);
            pcre2_match_context_free(limits);
        }
    };
    thread_local Scratch scratch;
    return pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0, options, scratch.data,
                       scratch.limits);
}

// A negated class matches some character a reply writes (else a pattern needing one of its
// characters could never be finished).
void check_class(std::string_view klass)
{
    pcre2_code* code = compile(klass);
    bool any = false;
    for (int c = 0x20; c < 0x7F && !any; ++c)
        any = match(code, std::string(1, static_cast<char>(c)), 0) >= 0;
    for (const char c : kEscaped)
        any = any || match(code, std::string(1, c), 0) >= 0;
    pcre2_code_free(code);
    if (!any)
        refuse("the class " + std::string(klass) + " holds none of the characters a reply writes in a string");
}

// What the header says is refused, read from the pattern's text.
void check(std::string_view p)
{
    if (p.size() > kMaxPatternBytes)
        refuse("longer than " + std::to_string(kMaxPatternBytes) + " bytes");
    bool in_class = false, negated = false;
    bool after_quantifier = false;  // the last character ends a quantifier (or a literal '}')
    size_t class_start = 0;
    // Every byte, an escaped one too (an escaped DEL is a DEL, which no reply writes).
    const auto check_byte = [](char c) {
        const auto byte = static_cast<uint8_t>(c);
        if (byte >= 0x80)
            refuse("characters beyond ASCII are not supported");
        if ((byte < 0x20 || byte == 0x7F) && c != '\t' && c != '\n' && c != '\r')
            refuse("control characters other than tab and line breaks are not supported");
    };
    for (size_t i = 0; i < p.size(); ++i) {
        const char c = p[i];
        check_byte(c);
        if (in_class || c == '\\')
            after_quantifier = false;
        if (c == '\\') {
            if (++i == p.size())
                refuse("ends in a backslash");
            const char e = p[i];
            check_byte(e);
            const bool letter_or_digit = (e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9');
            if (letter_or_digit && std::string_view("dDwWsStnrf").find(e) == std::string_view::npos)
                refuse(std::string("'\\") + e + "' is not supported");
            continue;
        }
        if (in_class) {
            if (c == '[')
                refuse("'[' inside a class is not supported");
            if (c == ']') {
                in_class = false;
                if (negated)
                    check_class(p.substr(class_start, i - class_start + 1));
            }
            continue;
        }
        if (c == '+' && after_quantifier)
            refuse("possessive quantifiers are not supported (not ECMA-262's)");
        after_quantifier = c == '*' || c == '+' || c == '?' || c == '}';
        if (c == '[') {
            in_class = true;
            class_start = i;
            negated = i + 1 < p.size() && p[i + 1] == '^';
            const size_t first = i + 1 + (negated ? 1 : 0);
            if (first < p.size() && p[first] == ']')
                refuse("a class beginning with ']' is not supported (ECMA-262 and PCRE2 read it apart)");
            i = first - 1;
        } else if (c == '(' && i + 1 < p.size() && p[i + 1] == '?' && (i + 2 >= p.size() || p[i + 2] != ':')) {
            refuse("'(?' groups other than (?:...) are not supported (lookaround, names, flags)");
        } else if (c == '^' && i != 0) {
            refuse("'^' other than first is not supported");
        } else if (c == '$' && i + 1 != p.size()) {
            refuse("'$' other than last is not supported");
        }
    }
}

} // namespace

struct StringPattern::Code {
    pcre2_code* code = nullptr;
    ~Code() { pcre2_code_free(code); }
};

StringPattern::StringPattern(std::string_view pattern)
{
    check(pattern);
    auto code = std::make_shared<Code>();
    code->code = compile(pattern);
    code_ = std::move(code);
}

bool StringPattern::admits_prefix(std::string_view text) const
{
    if (text.empty())
        return true;  // PCRE2 calls nothing partial before a character
    const int rc = match(code_->code, text, PCRE2_PARTIAL_HARD);
    return rc >= 0 || rc == PCRE2_ERROR_PARTIAL;
}

bool StringPattern::matches(std::string_view text) const
{
    return match(code_->code, text, 0) >= 0;
}

bool StringPattern::admits_a_character() const
{
    for (int c = 0; c < 0x80; ++c)
        if (writable(static_cast<char>(c)) && admits_prefix(std::string(1, static_cast<char>(c))))
            return true;
    return false;
}

bool StringPattern::writable(char c)
{
    return (c >= 0x20 && c < 0x7F) || kEscaped.find(c) != std::string_view::npos;
}

} // namespace pyramid
