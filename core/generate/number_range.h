#pragma once
// Bounds on a JSON number (JSON Schema's minimum, maximum, exclusiveMinimum, exclusiveMaximum),
// decided on the number's text while a model writes it: whether what was written so far can
// still end in range, and whether a whole number is in range.
//
// Numbers are compared as exact decimals against each bound's text (a double in the schema is
// written at its shortest, as nlohmann and Python print it: 0.1 is "0.1"). For an inclusive
// bound this agrees with a validator that compares doubles (Python's jsonschema, pydantic):
// rounding to a double is monotone, so a decimal at or under "0.1" is a double at or under 0.1.
// An exclusive bound could disagree only for a number within half a unit of the last place of
// the bound's double: more than 15 significant digits.
//
// The text is what JSON allows without an exponent: an optional minus, the integer part (no
// leading zero unless it is 0), and an optional fraction. With an exponent the set of values a
// beginning can reach has no simple form, so a bounded number is written without one (a subset
// of the values: every bounded value has such a text).
//
// A number has at most kMaxWholeDigits digits before its point and kMaxFractionDigits after it,
// as llama.cpp's JSON grammar bounds them: a small model otherwise writes digits until its
// tokens run out (SmolLM2 wrote "10.000000000000001111..." for a price). The values a bounded
// number can take are then multiples of 10^-16 (of 1 for an integer) within those digits: each
// bound is taken to the nearest such value within it first (a minimum of 0.5 for an integer is
// 1, an exclusive maximum of 10 is 9), and a bound beyond the digits to the largest they write.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace pyramid {

class NumberRange {
public:
    static constexpr size_t kMaxWholeDigits = 16;
    static constexpr size_t kMaxFractionDigits = 16;

    struct Bound {
        std::string text;  // a JSON number's text, an exponent allowed ("1e+300", "-0.5")
        bool exclusive = false;
    };

    // Any number the digits write.
    NumberRange() : NumberRange(std::nullopt, std::nullopt, false) {}
    // Throws pyramid::Error when a bound's text is no number.
    NumberRange(std::optional<Bound> lower, std::optional<Bound> upper, bool integer);

    // The schema gave a bound (the digits bound every number).
    bool bounded() const { return bounded_; }
    // No value (no integer, for an integer range) that the digits write lies within the bounds.
    bool empty() const;
    // Some number whose text begins with `text` lies in range. `text` is a beginning of a number
    // without exponent: "", "-", "12", "-0.", "3.25".
    bool admits_prefix(std::string_view text) const;
    // A whole number's text (no exponent) is in range.
    bool contains(std::string_view text) const;

private:
    // An exact decimal: sign, integer digits without leading zeros, fraction digits without
    // trailing zeros. Zero has no digits and no sign.
    struct Decimal {
        bool negative = false;
        std::string whole;
        std::string fraction;

        static Decimal parse(std::string_view text);  // throws Error when it is no number
        // `digits` with the decimal point `point` digits into them (before or past them too).
        static Decimal from_digits(bool negative, std::string digits, long point);
        // Times 10^places.
        Decimal shifted(long places) const;
        Decimal negated() const;
        // Round toward minus or plus infinity, to an integer.
        Decimal floor() const;
        Decimal ceil() const;
        // The magnitude plus 10^-digits (the sign kept; for values >= 0).
        Decimal plus_unit(size_t digits) const;
        // An integer plus or minus one.
        Decimal plus_one() const;
        Decimal minus_one() const;
        int compare(const Decimal& other) const;
        bool operator>(const Decimal& other) const { return compare(other) > 0; }
        bool operator<(const Decimal& other) const { return compare(other) < 0; }
        bool operator==(const Decimal& other) const { return compare(other) == 0; }
    };

    // Some value of the grid in [from, to) (to absent: no end) lies in [lower, upper].
    static bool meets(const Decimal& from, const std::optional<Decimal>& to, const Decimal& lower, const Decimal& upper);
    bool within(const Decimal& x) const;

    size_t fraction_digits_ = kMaxFractionDigits;
    bool bounded_ = false;
    Decimal lower_, upper_;  // on the grid, within the digits
};

} // namespace pyramid
