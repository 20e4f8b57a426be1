#pragma once
// A prompt for stories260K that is the same every run: BOS, then ids spread over the first 500
// of its vocabulary.
#include <cstdint>
#include <vector>

namespace pyramid::test {

inline std::vector<int32_t> stories_prompt(int length = 100)
{
    std::vector<int32_t> tokens{1};
    for (int i = 1; i < length; ++i)
        tokens.push_back(3 + (i * 37) % 500);
    return tokens;
}

} // namespace pyramid::test
