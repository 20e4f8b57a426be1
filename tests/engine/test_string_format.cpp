// String formats (string_format.h) against a reference written another way (regular
// expressions and std::chrono, tests/support/format_reference.h): every date of six years and
// every way to go on from their year, character by character, against the dates that exist;
// random valid times, date-times and UUIDs read to their end; walks taking random admitted
// characters never stop short of a whole string and end only at valid ones; one-character
// changes of valid strings are whole exactly when the reference says valid.
#include <QtTest>

#include <chrono>
#include <functional>
#include <random>
#include <set>
#include <string>

#include "format_reference.h"
#include "generate/string_format.h"

using namespace pyramid;

namespace {

struct Case {
    StringFormat format;
    const char* name;
    std::string (*sample)(std::mt19937&);
};

const Case kCases[] = {
    {StringFormat::Date, "date", test::random_date},
    {StringFormat::Time, "time", test::random_time},
    {StringFormat::DateTime, "date-time", test::random_date_time},
    {StringFormat::Uuid, "uuid", test::random_uuid},
};

const std::string kCharacters = "0123456789-:.+TZtzaAfFgx ";

} // namespace

class StringFormatTest : public QObject {
    Q_OBJECT
private slots:
    void dates_go_on_exactly_as_the_calendar_allows()
    {
        using namespace std::chrono;
        const std::string alphabet = "0123456789-";
        for (const int year : {1, 1900, 2000, 2023, 2024, 9999}) {
            char y[8];
            std::snprintf(y, sizeof y, "%04d", year);
            std::set<std::string> beginnings;  // of what follows the year, in the year's dates
            std::set<std::string> dates;
            for (sys_days d = sys_days{std::chrono::year(year) / January / 1}; year_month_day(d).year() == std::chrono::year(year);
                 d += days(1)) {
                const year_month_day ymd(d);
                const std::string rest = "-" + test::two_digits(static_cast<int>(static_cast<unsigned>(ymd.month()))) + "-" +
                                         test::two_digits(static_cast<int>(static_cast<unsigned>(ymd.day())));
                dates.insert(rest);
                for (size_t n = 0; n <= rest.size(); ++n)
                    beginnings.insert(rest.substr(0, n));
                QVERIFY(format_complete(StringFormat::Date, y + rest));
            }
            QVERIFY(dates.size() == 365 || dates.size() == 366);
            // Every text of up to six characters after the year.
            std::string rest;
            const std::function<void()> each = [&] {
                const std::string text = y + rest;
                QVERIFY2(format_admits_prefix(StringFormat::Date, text) == (beginnings.count(rest) > 0), text.c_str());
                QVERIFY2(format_complete(StringFormat::Date, text) == (dates.count(rest) > 0), text.c_str());
                if (rest.size() == 6)
                    return;
                for (const char c : alphabet) {
                    rest.push_back(c);
                    each();
                    rest.pop_back();
                }
            };
            each();
        }
        QVERIFY(!format_admits_prefix(StringFormat::Date, "0000"));
        QVERIFY(format_admits_prefix(StringFormat::Date, "000"));
        QVERIFY(!format_admits_prefix(StringFormat::Date, "2024-01-01 "));
    }

    void valid_strings_are_read_to_their_end()
    {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        for (const Case& c : kCases)
            for (int round = 0; round < 2000; ++round) {
                const std::string s = c.sample(rng);
                QVERIFY2(test::is_of_format(c.name, s), s.c_str());
                for (size_t n = 0; n < s.size(); ++n)
                    QVERIFY2(format_admits_prefix(c.format, s.substr(0, n)) && !format_complete(c.format, s.substr(0, n)),
                             s.c_str());
                QVERIFY2(format_complete(c.format, s), s.c_str());
                QVERIFY(s.size() >= format_min_length(c.format) && s.size() <= format_max_length(c.format));
            }
    }

    void walks_end_only_at_valid_strings()
    {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        for (const Case& c : kCases)
            for (int walk = 0; walk < 2000; ++walk) {
                std::string s;
                for (;;) {
                    std::string next;
                    for (const char ch : kCharacters)
                        if (format_admits_prefix(c.format, s + ch))
                            next += ch;
                    if (format_complete(c.format, s) && (next.empty() || rng() % 4 == 0))
                        break;
                    QVERIFY2(!next.empty(), ("a dead end after '" + s + "' (" + c.name + ")").c_str());
                    s += next[rng() % next.size()];
                }
                QVERIFY2(test::is_of_format(c.name, s), s.c_str());
            }
    }

    void changed_strings_are_whole_exactly_when_valid()
    {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        int valid = 0, invalid = 0;
        for (const Case& c : kCases)
            for (int round = 0; round < 5000; ++round) {
                std::string s = c.sample(rng);
                const size_t at = rng() % (s.size() + 1);
                const char ch = kCharacters[rng() % kCharacters.size()];
                switch (round % 3) {
                case 0: s.insert(at, 1, ch); break;
                case 1: if (at < s.size()) s[at] = ch; break;
                default: if (at < s.size()) s.erase(at, 1); break;
                }
                const bool reference = test::is_of_format(c.name, s);
                QVERIFY2(format_complete(c.format, s) == reference, (s + " (" + c.name + ")").c_str());
                if (reference)
                    for (size_t n = 0; n <= s.size(); ++n)
                        QVERIFY2(format_admits_prefix(c.format, s.substr(0, n)), s.c_str());
                valid += reference;
                invalid += !reference;
            }
        QVERIFY(valid > 1000 && invalid > 5000);
    }

    void names()
    {
        QCOMPARE(string_format("date-time"), std::optional<StringFormat>(StringFormat::DateTime));
        QCOMPARE(string_format("uuid"), std::optional<StringFormat>(StringFormat::Uuid));
        QVERIFY(!string_format("email") && !string_format("Date") && !string_format(""));
    }
};

QTEST_APPLESS_MAIN(StringFormatTest)
#include "test_string_format.moc"
