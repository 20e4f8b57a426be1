#pragma once
// Whether a string is a date, time, date-time or UUID as string_format.h defines them, decided
// another way for the tests: regular expressions for the shape and std::chrono for the
// calendar; and random strings of each.
#include <chrono>
#include <cstdio>
#include <random>
#include <regex>
#include <string>

namespace pyramid::test {

inline bool is_date(const std::string& text)
{
    static const std::regex shape("(\\d{4})-(\\d{2})-(\\d{2})");
    std::smatch m;
    if (!std::regex_match(text, m, shape))
        return false;
    const int year = std::stoi(m[1]);
    const std::chrono::year_month_day day{std::chrono::year(year), std::chrono::month(static_cast<unsigned>(std::stoi(m[2]))),
                                          std::chrono::day(static_cast<unsigned>(std::stoi(m[3])))};
    return year >= 1 && day.ok();
}

inline bool is_time(const std::string& text)
{
    static const std::regex shape("(\\d{2}):(\\d{2}):(\\d{2})(\\.\\d{1,6})?(Z|[+-](\\d{2}):(\\d{2}))");
    std::smatch m;
    if (!std::regex_match(text, m, shape))
        return false;
    const bool offset = m[5] != "Z";
    return std::stoi(m[1]) < 24 && std::stoi(m[2]) < 60 && std::stoi(m[3]) < 60 &&
           (!offset || (std::stoi(m[6]) < 24 && std::stoi(m[7]) < 60));
}

inline bool is_date_time(const std::string& text)
{
    const size_t t = text.find('T');
    return t != std::string::npos && is_date(text.substr(0, t)) && is_time(text.substr(t + 1));
}

inline bool is_uuid(const std::string& text)
{
    static const std::regex shape("[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}");
    return std::regex_match(text, shape);
}

// By JSON Schema's name; true for a format the reference does not know.
inline bool is_of_format(const std::string& format, const std::string& text)
{
    if (format == "date")
        return is_date(text);
    if (format == "time")
        return is_time(text);
    if (format == "date-time")
        return is_date_time(text);
    if (format == "uuid")
        return is_uuid(text);
    return true;
}

inline std::string two_digits(int v)
{
    char b[8];
    std::snprintf(b, sizeof b, "%02d", v);
    return b;
}

inline std::string random_time(std::mt19937& rng)
{
    const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    std::string t = two_digits(pick(0, 23)) + ":" + two_digits(pick(0, 59)) + ":" + two_digits(pick(0, 59));
    if (pick(0, 1)) {
        t += ".";
        for (int n = pick(1, 6); n > 0; --n)
            t += static_cast<char>('0' + pick(0, 9));
    }
    if (pick(0, 2) == 0)
        return t + "Z";
    return t + (pick(0, 1) ? "+" : "-") + two_digits(pick(0, 23)) + ":" + two_digits(pick(0, 59));
}

inline std::string random_date(std::mt19937& rng)
{
    const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    for (;;) {
        char b[16];
        std::snprintf(b, sizeof b, "%04d-%02d-%02d", pick(1, 9999), pick(1, 12), pick(1, 31));
        if (is_date(b))
            return b;
    }
}

inline std::string random_uuid(std::mt19937& rng)
{
    const char* hex = "0123456789abcdefABCDEF";
    std::string u;
    for (const int n : {8, 4, 4, 4, 12}) {
        if (!u.empty())
            u += '-';
        for (int i = 0; i < n; ++i)
            u += hex[rng() % 22];
    }
    return u;
}

inline std::string random_date_time(std::mt19937& rng) { return random_date(rng) + "T" + random_time(rng); }

// A random string of the format JSON Schema names.
inline std::string random_of_format(const std::string& format, std::mt19937& rng)
{
    if (format == "date")
        return random_date(rng);
    if (format == "time")
        return random_time(rng);
    if (format == "date-time")
        return random_date_time(rng);
    return random_uuid(rng);
}

} // namespace pyramid::test
