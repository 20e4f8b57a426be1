#include "generate/number_range.h"

#include <algorithm>

#include "util/error.h"

namespace pyramid {
namespace {

// A bound's exponent beyond this is refused (a double's reach 10^-324 .. 10^308 is within it),
// so that its digits stay few.
constexpr long kMaxExponent = 400;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string without_leading_zeros(std::string_view digits)
{
    const size_t first = digits.find_first_not_of('0');
    return first == std::string_view::npos ? std::string() : std::string(digits.substr(first));
}

std::string without_trailing_zeros(std::string_view digits)
{
    const size_t last = digits.find_last_not_of('0');
    return last == std::string_view::npos ? std::string() : std::string(digits.substr(0, last + 1));
}

// Digit strings as numbers: one added, one taken away (from a nonzero one).
void increment(std::string& digits)
{
    for (size_t i = digits.size(); i-- > 0;) {
        if (digits[i] != '9') {
            ++digits[i];
            return;
        }
        digits[i] = '0';
    }
    digits.insert(digits.begin(), '1');
}

void decrement(std::string& digits)
{
    for (size_t i = digits.size(); i-- > 0;) {
        if (digits[i] != '0') {
            --digits[i];
            break;
        }
        digits[i] = '9';
    }
    digits = without_leading_zeros(digits);
}

} // namespace

NumberRange::Decimal NumberRange::Decimal::parse(std::string_view text)
{
    const auto fail = [&] { throw Error("'" + std::string(text) + "' is not a number"); };
    size_t i = 0;
    Decimal d;
    d.negative = i < text.size() && text[i] == '-';
    i += d.negative;
    const size_t whole_begin = i;
    while (i < text.size() && is_digit(text[i]))
        ++i;
    std::string digits(text.substr(whole_begin, i - whole_begin));
    if (digits.empty())
        fail();
    long point = static_cast<long>(digits.size());  // the digits before the decimal point
    if (i < text.size() && text[i] == '.') {
        const size_t begin = ++i;
        while (i < text.size() && is_digit(text[i]))
            ++i;
        if (i == begin)
            fail();
        digits += text.substr(begin, i - begin);
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        const bool down = i < text.size() && text[i] == '-';
        i += i < text.size() && (text[i] == '-' || text[i] == '+');
        const size_t begin = i;
        long exponent = 0;
        while (i < text.size() && is_digit(text[i])) {
            exponent = std::min(exponent * 10 + (text[i] - '0'), kMaxExponent + 1);
            ++i;
        }
        if (i == begin)
            fail();
        if (exponent > kMaxExponent)
            throw Error("'" + std::string(text) + "' has an exponent beyond " + std::to_string(kMaxExponent));
        point += down ? -exponent : exponent;
    }
    if (i != text.size())
        fail();
    return from_digits(d.negative, std::move(digits), point);
}

NumberRange::Decimal NumberRange::Decimal::from_digits(bool negative, std::string digits, long point)
{
    // Pad with zeros either side so that the point falls within the digits.
    if (point <= 0) {
        digits.insert(0, static_cast<size_t>(-point), '0');
        point = 0;
    } else if (static_cast<size_t>(point) > digits.size()) {
        digits.append(static_cast<size_t>(point) - digits.size(), '0');
    }
    Decimal d;
    d.whole = without_leading_zeros(std::string_view(digits).substr(0, static_cast<size_t>(point)));
    d.fraction = without_trailing_zeros(std::string_view(digits).substr(static_cast<size_t>(point)));
    d.negative = negative && !(d.whole.empty() && d.fraction.empty());
    return d;
}

NumberRange::Decimal NumberRange::Decimal::shifted(long places) const
{
    return from_digits(negative, whole + fraction, static_cast<long>(whole.size()) + places);
}

NumberRange::Decimal NumberRange::Decimal::negated() const
{
    Decimal d = *this;
    d.negative = !negative && !(whole.empty() && fraction.empty());
    return d;
}

NumberRange::Decimal NumberRange::Decimal::floor() const
{
    Decimal d{negative, whole, {}};
    if (!fraction.empty() && negative)
        increment(d.whole);
    d.negative = negative && !d.whole.empty();
    return d;
}

NumberRange::Decimal NumberRange::Decimal::ceil() const
{
    Decimal d{negative, whole, {}};
    if (!fraction.empty() && !negative)
        increment(d.whole);
    d.negative = negative && !d.whole.empty();
    return d;
}

NumberRange::Decimal NumberRange::Decimal::plus_unit(size_t digits) const
{
    Decimal d = *this;
    if (digits == 0) {
        increment(d.whole);
        return d;
    }
    std::string places = fraction;
    places.resize(std::max(places.size(), digits), '0');
    std::string head = places.substr(0, digits);
    const size_t width = head.size();
    increment(head);
    if (head.size() > width) {  // carried into the whole part
        head.erase(0, 1);
        increment(d.whole);
    }
    d.fraction = without_trailing_zeros(head + places.substr(digits));
    return d;
}

int NumberRange::Decimal::compare(const Decimal& other) const
{
    if (negative != other.negative)
        return negative ? -1 : 1;
    int magnitude = 0;
    if (whole.size() != other.whole.size())
        magnitude = whole.size() < other.whole.size() ? -1 : 1;
    else if (const int c = whole.compare(other.whole); c != 0)
        magnitude = c < 0 ? -1 : 1;
    else if (const int f = fraction.compare(other.fraction); f != 0)
        magnitude = f < 0 ? -1 : 1;
    return negative ? -magnitude : magnitude;
}

NumberRange::Decimal NumberRange::Decimal::plus_one() const
{
    if (!negative)
        return plus_unit(0);
    Decimal d = *this;
    decrement(d.whole);
    d.negative = !d.whole.empty();
    return d;
}

NumberRange::Decimal NumberRange::Decimal::minus_one() const
{
    Decimal d = *this;
    if (negative || whole.empty()) {
        increment(d.whole);
        d.negative = true;
    } else {
        decrement(d.whole);
    }
    return d;
}

NumberRange::NumberRange(std::optional<Bound> lower, std::optional<Bound> upper, bool integer)
    : fraction_digits_(integer ? 0 : kMaxFractionDigits), bounded_(lower || upper)
{
    // The numbers a reply can write are multiples of 10^-fraction_digits_ (a grid); counted in
    // those units, each bound becomes the integer of the grid at or within it, so that every
    // comparison below is with a bound the grid reaches.
    const long places = static_cast<long>(fraction_digits_);
    const Decimal largest = Decimal::from_digits(false, std::string(kMaxWholeDigits + fraction_digits_, '9'),
                                                 static_cast<long>(kMaxWholeDigits));
    lower_ = largest.negated();
    upper_ = largest;
    if (lower) {
        const Decimal units = Decimal::parse(lower->text).shifted(places);
        const Decimal first = lower->exclusive ? units.floor().plus_one() : units.ceil();
        lower_ = std::max(lower_, first.shifted(-places));
    }
    if (upper) {
        const Decimal units = Decimal::parse(upper->text).shifted(places);
        const Decimal last = upper->exclusive ? units.ceil().minus_one() : units.floor();
        upper_ = std::min(upper_, last.shifted(-places));
    }
}

bool NumberRange::empty() const
{
    return upper_ < lower_;
}

bool NumberRange::within(const Decimal& x) const
{
    return !(x < lower_) && !(upper_ < x);
}

// [from, to) (to absent: no end) holds a number of the grid within `lower` and `upper` (both on
// the grid, lower <= upper) when `from` (on the grid) is not past `upper` and `lower` is before
// `to`: the grid's numbers in [from, to) are those from `from` up to the one before `to`.
bool NumberRange::meets(const Decimal& from, const std::optional<Decimal>& to, const Decimal& lower, const Decimal& upper)
{
    return !(upper < from) && (!to || lower < *to);
}

bool NumberRange::admits_prefix(std::string_view text) const
{
    if (text.empty())
        return !empty();
    const bool negative = text[0] == '-';
    const std::string_view magnitude = text.substr(negative ? 1 : 0);
    // A negative number's magnitude lies in [-upper, -lower].
    const Decimal lower = negative ? upper_.negated() : lower_;
    const Decimal upper = negative ? lower_.negated() : upper_;
    if (magnitude.empty())  // every magnitude from 0 ("-0" is 0)
        return meets(Decimal{}, std::nullopt, lower, upper);
    const size_t point = magnitude.find('.');
    const size_t whole_digits = std::min(point, magnitude.size());
    if (whole_digits > kMaxWholeDigits)
        return false;
    if (point != std::string_view::npos) {
        // "I.f": the magnitudes from I.f up to I.f + 10^-(digits of f).
        const size_t digits = magnitude.size() - point - 1;
        if (digits > fraction_digits_)
            return false;
        const Decimal from{false, without_leading_zeros(magnitude.substr(0, point)),
                           without_trailing_zeros(magnitude.substr(point + 1))};
        return meets(from, from.plus_unit(digits), lower, upper);
    }
    Decimal a{false, without_leading_zeros(magnitude), {}};
    if (a.whole.empty())  // "0": a fraction may follow, no digit
        return meets(a, a.plus_unit(0), lower, upper);
    // "I": then more digits, or a fraction: [I * 10^j, (I + 1) * 10^j) for each j >= 0 that
    // keeps the whole part within its digits.
    Decimal b = a.plus_unit(0);
    for (size_t digits = whole_digits; digits <= kMaxWholeDigits; ++digits) {
        if (meets(a, b, lower, upper))
            return true;
        a.whole += '0';
        b.whole += '0';
    }
    return false;
}

bool NumberRange::contains(std::string_view text) const
{
    return within(Decimal::parse(text));
}

} // namespace pyramid
