#include "projection_reference.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "gpu_test.h"

namespace pyramid::gpu_test {

Reference reference(const std::vector<float>& w, const std::vector<float>& x, int64_t rows, int64_t cols, int n,
                    const std::vector<float>* y0)
{
    Reference r{std::vector<float>(size_t(n * rows)), std::vector<double>(size_t(n * rows))};
    for (int t = 0; t < n; ++t)
        for (int64_t row = 0; row < rows; ++row) {
            double sum = 0, magnitude = 0;
            for (int64_t c = 0; c < cols; ++c) {
                const double p = double(w[size_t(row * cols + c)]) * double(x[size_t(t * cols + c)]);
                sum += p;
                magnitude += std::abs(p);
            }
            const size_t i = size_t(t * rows + row);
            if (y0) {
                sum += (*y0)[i];
                magnitude += std::abs((*y0)[i]);
            }
            r.y[i] = float(sum);
            r.magnitude[i] = magnitude;
        }
    return r;
}

void check_projection(const std::string& what, const std::vector<float>& actual, const Reference& expected)
{
    size_t bad = 0, worst = 0;
    double worst_ratio = 0;
    for (size_t i = 0; i < actual.size(); ++i) {
        const double err = std::abs(double(actual[i]) - double(expected.y[i]));
        const double limit = 1e-5 * expected.magnitude[i] + 1e-30;
        if (!(err <= limit)) {
            ++bad;
            const double ratio = std::isnan(err) ? INFINITY : err / limit;
            if (ratio >= worst_ratio) {
                worst_ratio = ratio;
                worst = i;
            }
        }
    }
    if (bad > 0) {
        char text[256];
        std::snprintf(text, sizeof text, "%s: %zu of %zu values off, worst [%zu] = %.9g, expected %.9g (sum |wx| %.4g)",
                      what.c_str(), bad, actual.size(), worst, double(actual[worst]), double(expected.y[worst]),
                      expected.magnitude[worst]);
        fail(text);
    }
}

void check_bits(const std::string& what, const std::vector<float>& actual, const std::vector<float>& expected)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < expected.size(); ++i)
        if (std::memcmp(&actual[i], &expected[i], sizeof(float)) != 0 && bad++ == 0)
            first = i;
    if (bad > 0) {
        char text[256];
        std::snprintf(text, sizeof text, "%s: %zu of %zu values differ in their bits, first [%zu] = %.9g, expected %.9g",
                      what.c_str(), bad, expected.size(), first, double(actual[first]), double(expected[first]));
        fail(text);
    }
}

} // namespace pyramid::gpu_test
