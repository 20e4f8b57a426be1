#include "generate/string_format.h"

namespace pyramid {
namespace {

// Where reading a text against a format got to.
enum class Status { Refused, Short, Whole };

// Reads a text one element of a format at a time. Each step answers Whole when the element
// was read and more may follow, Short when the text ended inside it (or before it) with its
// digits still able to make one, Refused otherwise.
class Reader {
public:
    explicit Reader(std::string_view text) : text_(text) {}

    bool at_end() const { return at_ == text_.size(); }

    Status literal(char c)
    {
        if (at_end())
            return Status::Short;
        return text_[at_++] == c ? Status::Whole : Status::Refused;
    }

    // `width` decimal digits making a number in [lo, hi].
    Status number(int width, int lo, int hi, int& value)
    {
        value = 0;
        for (int k = 0; k < width; ++k) {
            if (at_end()) {
                // The numbers with these first k digits: [value * span, (value + 1) * span).
                int span = 1;
                for (int i = k; i < width; ++i)
                    span *= 10;
                return value * span <= hi && (value + 1) * span - 1 >= lo ? Status::Short : Status::Refused;
            }
            const char c = text_[at_++];
            if (c < '0' || c > '9')
                return Status::Refused;
            value = value * 10 + (c - '0');
        }
        return value >= lo && value <= hi ? Status::Whole : Status::Refused;
    }

    Status hex(int width)
    {
        for (int k = 0; k < width; ++k) {
            if (at_end())
                return Status::Short;
            const char c = text_[at_++];
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
                return Status::Refused;
        }
        return Status::Whole;
    }

    // One to `most` digits, if the next character begins them.
    Status optional_fraction(int most)
    {
        if (at_end())
            return Status::Short;
        if (text_[at_] != '.')
            return Status::Whole;
        ++at_;
        int digits = 0;
        while (!at_end() && text_[at_] >= '0' && text_[at_] <= '9') {
            ++at_;
            if (++digits > most)
                return Status::Refused;
        }
        return digits == 0 ? (at_end() ? Status::Short : Status::Refused) : Status::Whole;
    }

    char peek() const { return text_[at_]; }

private:
    std::string_view text_;
    size_t at_ = 0;
};

int days_in_month(int year, int month)
{
    static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    return month == 2 && leap ? 29 : kDays[month - 1];
}

// Runs `steps` in turn while each reads a whole element.
#define PYRAMID_READ(step)                \
    do {                                  \
        const Status s_ = (step);         \
        if (s_ != Status::Whole)          \
            return s_;                    \
    } while (false)

Status date(Reader& r)
{
    int year = 0, month = 0, day = 0;
    PYRAMID_READ(r.number(4, 1, 9999, year));
    PYRAMID_READ(r.literal('-'));
    PYRAMID_READ(r.number(2, 1, 12, month));
    PYRAMID_READ(r.literal('-'));
    return r.number(2, 1, days_in_month(year, month), day);
}

Status time(Reader& r)
{
    int unused = 0;
    PYRAMID_READ(r.number(2, 0, 23, unused));
    PYRAMID_READ(r.literal(':'));
    PYRAMID_READ(r.number(2, 0, 59, unused));
    PYRAMID_READ(r.literal(':'));
    PYRAMID_READ(r.number(2, 0, 59, unused));
    PYRAMID_READ(r.optional_fraction(6));
    if (r.at_end())
        return Status::Short;
    if (r.peek() == 'Z')
        return r.literal('Z');
    if (r.peek() != '+' && r.peek() != '-')
        return Status::Refused;
    PYRAMID_READ(r.literal(r.peek()));
    PYRAMID_READ(r.number(2, 0, 23, unused));
    PYRAMID_READ(r.literal(':'));
    return r.number(2, 0, 59, unused);
}

Status uuid(Reader& r)
{
    PYRAMID_READ(r.hex(8));
    for (int group = 0; group < 3; ++group) {
        PYRAMID_READ(r.literal('-'));
        PYRAMID_READ(r.hex(4));
    }
    PYRAMID_READ(r.literal('-'));
    return r.hex(12);
}

#undef PYRAMID_READ

Status read(StringFormat format, std::string_view text)
{
    Reader r(text);
    Status s = Status::Refused;
    switch (format) {
    case StringFormat::Date: s = date(r); break;
    case StringFormat::Time: s = time(r); break;
    case StringFormat::DateTime:
        s = date(r);
        if (s == Status::Whole)
            s = r.literal('T');
        if (s == Status::Whole)
            s = time(r);
        break;
    case StringFormat::Uuid: s = uuid(r); break;
    }
    // Whole with characters left: the string went on past its end.
    return s == Status::Whole && !r.at_end() ? Status::Refused : s;
}

} // namespace

std::optional<StringFormat> string_format(std::string_view name)
{
    if (name == "date")
        return StringFormat::Date;
    if (name == "time")
        return StringFormat::Time;
    if (name == "date-time")
        return StringFormat::DateTime;
    if (name == "uuid")
        return StringFormat::Uuid;
    return std::nullopt;
}

bool format_admits_prefix(StringFormat format, std::string_view text)
{
    return read(format, text) != Status::Refused;
}

bool format_complete(StringFormat format, std::string_view text)
{
    return read(format, text) == Status::Whole;
}

uint32_t format_min_length(StringFormat format)
{
    switch (format) {
    case StringFormat::Date: return 10;
    case StringFormat::Time: return 9;       // HH:MM:SSZ
    case StringFormat::DateTime: return 20;  // date, T, time
    case StringFormat::Uuid: return 36;
    }
    return 0;
}

uint32_t format_max_length(StringFormat format)
{
    switch (format) {
    case StringFormat::Date: return 10;
    case StringFormat::Time: return 21;  // HH:MM:SS.ffffff+HH:MM
    case StringFormat::DateTime: return 32;
    case StringFormat::Uuid: return 36;
    }
    return 0;
}

} // namespace pyramid
