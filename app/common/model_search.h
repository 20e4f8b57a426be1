#pragma once
// Where the tools look for a model when none is named: $PYRAMID_MODEL, the user's data
// folder (<data>/models), then the shared models folder next to a source checkout.
#include <filesystem>
#include <optional>
#include <vector>

namespace pyramid {

std::vector<std::filesystem::path> default_model_candidates();
std::optional<std::filesystem::path> find_default_model();

} // namespace pyramid
