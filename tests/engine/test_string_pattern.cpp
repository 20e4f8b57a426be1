// StringPattern (PCRE2's partial matching) against std::regex's ECMAScript grammar, the dialect
// JSON Schema names: whole strings match exactly when std::regex_search finds the pattern;
// walks taking random admitted characters (often ones the pattern names) are never stuck and end only at matching strings;
// every beginning of a matching string found is admitted; what could leave a string unfinished
// is refused with the reason.
#include <QtTest>

#include <random>
#include <regex>
#include <string>

#include "generate/string_pattern.h"
#include "util/error.h"

using namespace pyramid;

namespace {

const char* const kPatterns[] = {
    "^\\d{3}-\\d{4}$",
    "^[A-Z][a-z]+( [A-Z][a-z]+)*$",
    "abc",
    "^(cat|dog)s?$",
    "^[^,]+,[^,]+$",
    "x+y?z",
    "^\\w+@\\w+\\.(com|org)$",
    "^(?:\\+|-)?\\d+(?:\\.\\d{1,2})?$",
    "^a.c$",
    "^\\s*\\S+\\s*$",
    "^[a-f0-9]{2}(:[a-f0-9]{2}){2}$",
    "^\"[a-z]*\"$",
    "^line\\nbreak$",
    "^$",
    "^[^a-z]{2,3}$",
    "(ab|a)(bc|c)$",
};

// The characters the tests write: those the patterns name, and some they do not.
const std::string kCharacters = "0123456789-+.,:@ abcdefgostxyzACDZ\"\n\t\\/_";

bool reference(const char* pattern, const std::string& text)
{
    return std::regex_search(text, std::regex(pattern, std::regex::ECMAScript));
}

} // namespace

class StringPatternTest : public QObject {
    Q_OBJECT
private slots:
    void whole_strings_match_as_ecmascript_reads_the_pattern()
    {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        int matched = 0;
        for (const char* p : kPatterns) {
            const StringPattern pattern(p);
            const std::regex re(p, std::regex::ECMAScript);
            for (int round = 0; round < 3000; ++round) {
                std::string text;
                for (int n = static_cast<int>(rng() % 12); n > 0; --n)
                    text += kCharacters[rng() % kCharacters.size()];
                const bool expected = std::regex_search(text, re);
                QVERIFY2(pattern.matches(text) == expected, (std::string(p) + " on '" + text + "'").c_str());
                matched += expected;
            }
        }
        QVERIFY(matched > 1000);
    }

    void walks_are_never_stuck_and_end_at_matches()
    {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        for (const char* p : kPatterns) {
            const StringPattern pattern(p);
            for (int walk = 0; walk < 300; ++walk) {
                std::string text;
                for (int step = 0;; ++step) {
                    std::string next;
                    for (int c = 0; c < 128; ++c)
                        if (StringPattern::writable(static_cast<char>(c)) && pattern.admits_prefix(text + static_cast<char>(c)))
                            next += static_cast<char>(c);
                    const bool whole = pattern.matches(text);
                    if (whole && (next.empty() || rng() % 4 == 0 || step > 40))
                        break;
                    QVERIFY2(!next.empty(), (std::string("stuck after '") + text + "' for " + p).c_str());
                    // Half the time a character the pattern's text names, so that walks end.
                    std::string named;
                    for (const char c : next)
                        if (std::string(p).find(c) != std::string::npos)
                            named += c;
                    const std::string& from = !named.empty() && rng() % 2 ? named : next;
                    text += from[rng() % from.size()];
                    QVERIFY2(step < 200, (std::string("no end for ") + p).c_str());
                }
                QVERIFY2(reference(p, text), (std::string(p) + " ended at '" + text + "'").c_str());
            }
        }
    }

    void beginnings_of_matches_are_admitted()
    {
        const std::pair<const char*, const char*> cases[] = {
            {"^\\d{3}-\\d{4}$", "555-0123"},          {"^[A-Z][a-z]+( [A-Z][a-z]+)*$", "Ada Lovelace"},
            {"abc", "abc"},                           {"abc", "abcdef"},
            {"^(?:\\+|-)?\\d+(?:\\.\\d{1,2})?$", "-12.5"}, {"^\"[a-z]*\"$", "\"quoted\""},
            {"^line\\nbreak$", "line\nbreak"},        {"(ab|a)(bc|c)$", "abc"},
        };
        for (const auto& [p, text] : cases) {
            const StringPattern pattern(p);
            const std::string t = text;
            for (size_t n = 0; n <= t.size(); ++n)
                QVERIFY2(pattern.admits_prefix(t.substr(0, n)), (std::string(p) + " refused '" + t.substr(0, n) + "'").c_str());
            QVERIFY(pattern.matches(t));
        }
        // Backtracking without end is cut short: a text it does not match is refused at once.
        const StringPattern nested("^(a+)+$");
        QVERIFY(nested.admits_prefix(std::string(40, 'a')));
        QVERIFY(!nested.admits_prefix(std::string(40, 'a') + "!"));
        QVERIFY(nested.matches(std::string(40, 'a')));
        const StringPattern digits("^\\d{3}-\\d{4}$");
        QVERIFY(!digits.admits_prefix("12a"));
        QVERIFY(!digits.admits_prefix("555-01234"));
        QVERIFY(!digits.matches("555-012"));
    }

    void what_could_leave_a_string_unfinished_is_refused()
    {
        const std::pair<const char*, const char*> cases[] = {
            {"^a(?=b)c", "'(?' groups"},
            {"(?<name>a)", "'(?' groups"},
            {"(a)\\1", "'\\1' is not supported"},
            {"\\bword", "'\\b' is not supported"},
            {"^a$b", "'$' other than last"},
            {"a^b", "'^' other than first"},
            {"caf\xc3\xa9", "beyond ASCII"},
            {"\\u00e9", "'\\u' is not supported"},
            {"\\x41", "'\\x' is not supported"},
            {"\\p{L}", "'\\p' is not supported"},
            {"a\x01", "control characters"},
            {"a\\\x7f", "control characters"},  // found by fuzz_json_schema: DEL, escaped
            {"[^\\s\\S]", "holds none of the characters"},
            {"[[:alpha:]]", "'[' inside a class"},
            {"[]a]", "beginning with ']'"},
            {"(unclosed", "does not compile"},
            {"^a*+a$", "possessive"},
            {"^a{2}+$", "possessive"},
        };
        for (const auto& [p, says] : cases) {
            try {
                StringPattern pattern(p);
                QFAIL((std::string("accepted: ") + p).c_str());
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(says) != std::string::npos, (std::string(p) + " -> " + e.what()).c_str());
            }
        }
        QVERIFY_THROWS_EXCEPTION(Error, StringPattern(std::string(1001, 'a')));
    }
};

QTEST_APPLESS_MAIN(StringPatternTest)
#include "test_string_pattern.moc"
