#pragma once
// JSON Schema's `pattern`: a regular expression a string must match somewhere (ECMA-262's
// syntax, unanchored unless it says ^ or $), as pydantic writes it for constr(pattern=...).
// PCRE2 compiles it, and its hard partial matching says, character by character, whether the
// text so far can still become a string that matches.
//
// A model's string must never reach a beginning that nothing can finish (json_schema_prefix.h).
// PCRE2's partial match promises that only for the regular part of its language, so a pattern
// is held to that part and to what a reply writes in a patterned string (printable ASCII and
// the short escapes \" \\ \/ \b \f \n \r \t, decoded before matching):
//   refused: lookaround and other (? groups but (?:...), backreferences, possessive
//   quantifiers (PCRE2's, not ECMA-262's: a*+a never matches), \b \B \A \z \Z \G
//   and the other assertions and letter escapes but \d \D \w \W \s \S \t \n \r \f, ^ other
//   than first and $ other than last, characters beyond ASCII and control characters other
//   than tab and line breaks, and a negated class that holds none of the characters written;
//   kept: literals, ., classes, \d \w \s and their negations, groups, alternation, quantifiers.
// Matched as ECMA-262 does for these: \d and \w are ASCII, $ only at the very end. A match
// that needs more than 100,000 of PCRE2's steps (a pattern such as ^(a+)+$ backtracking on a
// text it does not match) counts as none, so each step stays bounded in time.
#include <memory>
#include <string>
#include <string_view>

namespace pyramid {

class StringPattern {
public:
    // Throws pyramid::Error naming what is not held to, or PCRE2's message.
    explicit StringPattern(std::string_view pattern);

    // Some string beginning with `text` (ASCII, escapes decoded) matches.
    bool admits_prefix(std::string_view text) const;
    // `text` matches.
    bool matches(std::string_view text) const;
    // Some string of one or more characters matches: one a reply writes begins it.
    bool admits_a_character() const;
    // Whether a character a reply can write in a patterned string.
    static bool writable(char c);

private:
    struct Code;
    std::shared_ptr<const Code> code_;
};

} // namespace pyramid
