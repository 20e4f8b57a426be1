#pragma once
// White space between JSON tokens as JsonSchemaPrefix allows a model to write it (none, one
// space, or a line break and up to 20 spaces or tabs; never before a colon or a comma), for
// the JSON tests: a random run of it, and whether a text's runs outside strings keep to it;
// and whether its numbers keep to the digits allowed.
#include <random>
#include <string>
#include <string_view>

namespace pyramid::test {

inline std::string random_spacing(std::mt19937& rng)
{
    const auto pick = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng); };
    switch (pick(0, 5)) {
    case 0: return " ";
    case 1: {
        std::string out = "\n";
        for (int n = pick(0, 8); n > 0; --n)
            out += pick(0, 3) ? ' ' : '\t';
        return out;
    }
    default: return "";
    }
}

// Runs of whitespace outside strings (a quote opens and closes one unless escaped).
inline bool spacing_as_allowed(std::string_view text)
{
    bool in_string = false, escaped = false;
    for (size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (in_string) {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
            ++i;
            continue;
        }
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            in_string = c == '"';
            ++i;
            continue;
        }
        size_t breaks = 0, blanks = 0;
        for (; i < text.size() && text[i] == '\n'; ++i)
            ++breaks;
        for (; i < text.size() && (text[i] == ' ' || text[i] == '\t'); ++i)
            ++blanks;
        const bool one_space = breaks == 0 && blanks == 1 && text[i - 1] == ' ';
        if (!(one_space || (breaks == 1 && blanks <= 20)))
            return false;
        if (i < text.size() && (text[i] == '\n' || text[i] == '\r' || text[i] == ':' || text[i] == ','))
            return false;  // a line break after blanks, a carriage return, before a colon or comma
    }
    return true;
}

// Numbers outside strings keep to the digits JsonSchemaPrefix allows: at most 16 before the
// point, 16 after it and 3 in the exponent.
inline bool digits_as_allowed(std::string_view text)
{
    bool in_string = false, escaped = false;
    size_t run = 0, most = 16;
    for (const char c : text) {
        if (in_string) {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
            continue;
        }
        if (c >= '0' && c <= '9') {
            if (++run > most)
                return false;
            continue;
        }
        run = 0;
        if (c == 'e' || c == 'E')
            most = 3;
        else if (c != '.' && c != '+' && c != '-')
            most = 16;
        in_string = c == '"';
    }
    return true;
}

} // namespace pyramid::test
