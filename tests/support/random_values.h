#pragma once
// Random inputs and their comparison, as the kernel tests draw and measure them.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace pyramid::test {

// n values of a normal distribution with mean 0 and standard deviation `scale`, in the order
// rng yields them: a test's seed decides its inputs.
inline std::vector<float> random_vector(size_t n, std::mt19937& rng, float scale = 1.0f)
{
    std::normal_distribution<float> d(0.0f, scale);
    std::vector<float> v(n);
    for (float& x : v)
        x = d(rng);
    return v;
}

// n token ids drawn uniformly from [first, first + count), in the order a generator seeded
// with `seed` yields them: prompts for a model whose vocabulary holds those ids.
inline std::vector<int32_t> random_tokens(size_t n, unsigned seed, int32_t first, uint32_t count)
{
    std::mt19937 rng(seed);
    std::vector<int32_t> tokens(n);
    for (int32_t& t : tokens)
        t = static_cast<int32_t>(first + static_cast<int32_t>(rng() % count));
    return tokens;
}

// The largest |a[i] - b[i]| over a's elements (b at least as long), the difference taken in
// the wider of the two element types.
template <typename A, typename B>
double max_abs_diff(const std::vector<A>& a, const std::vector<B>& b)
{
    double m = 0;
    for (size_t i = 0; i < a.size(); ++i)
        m = std::max(m, double(std::abs(a[i] - b[i])));
    return m;
}

} // namespace pyramid::test
