// NumberRange against brute force: for every range of a grid of bounds (inclusive, exclusive,
// absent; number and integer), a beginning of a number is admitted exactly when some number in
// range is written with it, found among all numbers to three decimals in [-25, 25] and the
// integers to 999 (enough witnesses for bounds of two decimals within 20), and a whole
// number is contained exactly when strtod's double is in range (how Python compares; for
// these bounds the same as comparing decimals).
#include <QtTest>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "generate/number_range.h"
#include "util/error.h"

using namespace pyramid;

namespace {

struct Side {
    std::optional<double> value;
    bool exclusive = false;
};

std::string text_of(double v)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.17g", v);
    // The shortest text that reads back as v, as a schema's bound is written.
    for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(buffer, sizeof buffer, "%.*g", digits, v);
        if (std::strtod(buffer, nullptr) == v)
            break;
    }
    return buffer;
}

std::optional<NumberRange::Bound> bound(const Side& s)
{
    if (!s.value)
        return std::nullopt;
    return NumberRange::Bound{text_of(*s.value), s.exclusive};
}

bool in_range(double x, const Side& lower, const Side& upper)
{
    if (lower.value && (x < *lower.value || (x == *lower.value && lower.exclusive)))
        return false;
    return !upper.value || x < *upper.value || (x == *upper.value && !upper.exclusive);
}

// Every way to write the numbers the brute force knows: k / 1000 for |k| <= 25000 with zero to
// three decimals where exact (trailing zeros included), the integers to 999, each with a minus.
std::vector<std::string> witnesses(bool integer)
{
    std::vector<std::string> texts;
    const auto both_signs = [&](const std::string& t) {
        texts.push_back(t);
        texts.push_back("-" + t);
    };
    if (integer) {
        for (int k = 0; k <= 999; ++k)
            both_signs(std::to_string(k));
    } else {
        for (int k = 0; k <= 25000; ++k) {
            const std::string whole = std::to_string(k / 1000);
            char places[4];
            std::snprintf(places, sizeof places, "%03d", k % 1000);
            const int needed = k % 1000 == 0 ? 0 : k % 100 == 0 ? 1 : k % 10 == 0 ? 2 : 3;
            if (needed == 0)
                both_signs(whole);
            for (int decimals = std::max(needed, 1); decimals <= 3; ++decimals)
                both_signs(whole + "." + std::string(places, static_cast<size_t>(decimals)));
        }
        for (int k = 26; k <= 999; ++k)
            both_signs(std::to_string(k));
    }
    std::sort(texts.begin(), texts.end());
    return texts;
}

} // namespace

class NumberRangeTest : public QObject {
    Q_OBJECT
private slots:
    void beginnings_and_wholes_agree_with_brute_force()
    {
        const std::vector<double> lows = {-10.5, -1, -0.25, 0, 0.1, 0.5, 3, 7.75, 10};
        const std::vector<double> highs = {-1, 0, 0.25, 1, 3, 10.5, 20};
        std::vector<Side> lower_sides = {{}}, upper_sides = {{}};
        for (const double v : lows)
            for (const bool exclusive : {false, true})
                lower_sides.push_back({v, exclusive});
        for (const double v : highs)
            for (const bool exclusive : {false, true})
                upper_sides.push_back({v, exclusive});
        size_t ranges = 0, checked = 0, admitted = 0;
        for (const bool integer : {false, true}) {
            const std::vector<std::string> texts = witnesses(integer);
            std::vector<double> values;
            for (const std::string& t : texts)
                values.push_back(std::strtod(t.c_str(), nullptr));
            // The beginnings asked about: those of the witnesses, with at most two decimals.
            std::vector<std::string> beginnings = {"", "-"};
            for (const std::string& t : texts)
                for (size_t n = 1; n <= t.size(); ++n) {
                    const std::string b = t.substr(0, n);
                    const size_t point = b.find('.');
                    if (point == std::string::npos || b.size() - point - 1 <= 2)
                        beginnings.push_back(b);
                }
            std::sort(beginnings.begin(), beginnings.end());
            beginnings.erase(std::unique(beginnings.begin(), beginnings.end()), beginnings.end());

            for (const Side& lower : lower_sides)
                for (const Side& upper : upper_sides) {
                    const NumberRange range(bound(lower), bound(upper), integer);
                    // In range: the witnesses in sorted order, counted so far.
                    std::vector<size_t> before(texts.size() + 1, 0);
                    for (size_t i = 0; i < texts.size(); ++i)
                        before[i + 1] = before[i] + in_range(values[i], lower, upper);
                    QCOMPARE(range.empty(), before.back() == 0);
                    if (range.empty())
                        continue;
                    ++ranges;
                    // Whole numbers: a thirteenth of them in each range, a different one each time.
                    for (size_t i = ranges % 13; i < texts.size(); i += 13)
                        QVERIFY2(range.contains(texts[i]) == (before[i + 1] > before[i]),
                                 (texts[i] + " in " + bound(lower).value_or(NumberRange::Bound{"-inf"}).text + ".." +
                                  bound(upper).value_or(NumberRange::Bound{"inf"}).text).c_str());
                    for (const std::string& b : beginnings) {
                        // The witnesses beginning with b are those sorted from b up to b + "\x7f".
                        const auto first = std::lower_bound(texts.begin(), texts.end(), b);
                        const auto last = std::lower_bound(texts.begin(), texts.end(), b + "\x7f");
                        const bool expected = before[static_cast<size_t>(last - texts.begin())] >
                                              before[static_cast<size_t>(first - texts.begin())];
                        const bool got = range.admits_prefix(b);
                        QVERIFY2(got == expected,
                                 ("'" + b + "' " + (got ? "admitted" : "refused") + (integer ? " (integer)" : "") +
                                  " in " + (lower.exclusive ? "(" : "[") +
                                  bound(lower).value_or(NumberRange::Bound{"-inf"}).text + ", " +
                                  bound(upper).value_or(NumberRange::Bound{"inf"}).text + (upper.exclusive ? ")" : "]"))
                                     .c_str());
                        ++checked;
                        admitted += got;
                    }
                }
        }
        QVERIFY(ranges > 300);
        QVERIFY(admitted > checked / 10 && admitted < checked - checked / 10);  // both answers often
    }

    // Bounds as a schema writes them: exponents, a double's shortest form, far out.
    void bounds_far_out_and_with_exponents()
    {
        // Past the 16 digits a number may have before its point: the largest they write.
        const NumberRange big(std::nullopt, NumberRange::Bound{"1e+300"}, false);
        QVERIFY(big.contains(std::string(16, '9') + "." + std::string(16, '9')));
        QVERIFY(big.admits_prefix(std::string(16, '9')));
        QVERIFY(!big.admits_prefix(std::string(17, '9')));
        QVERIFY(big.admits_prefix("1." + std::string(16, '0')));
        QVERIFY(!big.admits_prefix("1." + std::string(17, '0')));
        QVERIFY(NumberRange(NumberRange::Bound{"1e16"}, std::nullopt, true).empty());
        QVERIFY(!NumberRange(NumberRange::Bound{"9999999999999999"}, std::nullopt, true).empty());
        // Within 16 decimals: an exclusive bound's next value, and none between two bounds closer.
        const NumberRange close(NumberRange::Bound{"0.1", true}, std::nullopt, false);
        QVERIFY(close.contains("0.1000000000000001"));
        QVERIFY(close.admits_prefix("0.100000000000000"));
        QVERIFY(!close.admits_prefix("0.1000000000000000"));
        QVERIFY(NumberRange(NumberRange::Bound{"1e-17"}, NumberRange::Bound{"9e-17"}, false).empty());
        QVERIFY(NumberRange(NumberRange::Bound{"0", true}, NumberRange::Bound{"1e-16", true}, false).empty());

        const NumberRange tiny(NumberRange::Bound{"5e-07", true}, NumberRange::Bound{"1E-6"}, false);
        QVERIFY(tiny.admits_prefix("0.00000"));
        QVERIFY(!tiny.admits_prefix("0.0000004"));
        QVERIFY(tiny.admits_prefix("0.0000005"));  // 0.00000051
        QVERIFY(!tiny.contains("0.0000005"));
        QVERIFY(tiny.contains("0.00000050001"));
        QVERIFY(tiny.contains("0.000001"));
        QVERIFY(!tiny.admits_prefix("-"));

        // An integer range between two integers that holds none.
        QVERIFY(NumberRange(NumberRange::Bound{"0.5"}, NumberRange::Bound{"0.75"}, true).empty());
        QVERIFY(!NumberRange(NumberRange::Bound{"0.5"}, NumberRange::Bound{"0.75"}, false).empty());
        QVERIFY(NumberRange(NumberRange::Bound{"2", true}, NumberRange::Bound{"3", true}, true).empty());
        const NumberRange negative(NumberRange::Bound{"-3.5"}, NumberRange::Bound{"-1", true}, true);
        QVERIFY(negative.contains("-3") && negative.contains("-2") && !negative.contains("-1"));
        QVERIFY(!negative.contains("-4") && !negative.admits_prefix("0") && negative.admits_prefix("-"));

        for (const char* no : {"", "-", "1.", ".5", "1e", "abc", "1e999999"})
            QVERIFY_THROWS_EXCEPTION(Error, NumberRange(NumberRange::Bound{no}, std::nullopt, false));
    }
};

QTEST_APPLESS_MAIN(NumberRangeTest)
#include "test_number_range.moc"
