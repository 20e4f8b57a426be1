#pragma once
// Lists of entry indices as the policy tests spell what a policy should keep.
#include <numeric>
#include <vector>

namespace pyramid::test {

// begin, begin + 1, ..., end - 1.
inline std::vector<int> range(int begin, int end)
{
    std::vector<int> v(static_cast<size_t>(end - begin));
    std::iota(v.begin(), v.end(), begin);
    return v;
}

// a followed by b.
inline std::vector<int> joined(std::vector<int> a, const std::vector<int>& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

} // namespace pyramid::test
