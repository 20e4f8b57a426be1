#pragma once
// JSON Schema's `format` for the strings a reply holds to: dates, times and UUIDs, which
// pydantic writes for `date`, `time`, `datetime` and `UUID` fields and then parses, so a reply
// with "next Tuesday" in a date field fails the caller's model even though JSON Schema calls
// `format` an annotation. Each format is read character by character: whether what was written
// so far can still become a string of the format, and whether it is one.
//
// What each format is (RFC 3339's grammar, as strict as the parsers that read it):
//   date       YYYY-MM-DD: year 0001-9999 (Python's dates begin at year 1), a month 01-12 and
//              a day that month has (29 February in leap years only)
//   time       HH:MM:SS, an optional fraction of one to six digits (Python keeps microseconds),
//              then Z or an offset +HH:MM / -HH:MM; hours 00-23, minutes and seconds 00-59
//              (no leap second: Python's times have none)
//   date-time  a date, T, a time
//   uuid       8-4-4-4-12 hexadecimal digits, either case
// Letters are uppercase (T, Z) as RFC 3339 writes them; every string these take is valid to
// RFC 3339, to JSON Schema's format checkers and to pydantic. The other formats (email, uri,
// hostname, ...) are left to the model: json_schema.h reads past them.
#include <cstdint>
#include <optional>
#include <string_view>

namespace pyramid {

enum class StringFormat : uint8_t { Date, Time, DateTime, Uuid };

// The format JSON Schema names `name`; none for a format this does not hold strings to.
std::optional<StringFormat> string_format(std::string_view name);

// Some string of the format begins with `text` (empty: true).
bool format_admits_prefix(StringFormat format, std::string_view text);
// `text` is a whole string of the format.
bool format_complete(StringFormat format, std::string_view text);

// The fewest and the most characters a string of the format has.
uint32_t format_min_length(StringFormat format);
uint32_t format_max_length(StringFormat format);

} // namespace pyramid
