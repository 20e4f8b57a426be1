#pragma once
// Where the tools look for a model when none is named: $PYRAMID_MODEL alone when it is set
// (a missing file is an error, never passed over), else the user's data folder
// (<data>/models, in name order), then the shared models folder next to a source checkout.
#include <filesystem>
#include <optional>
#include <vector>

namespace pyramid {

std::vector<std::filesystem::path> default_model_candidates();
// Throws pyramid::Error when $PYRAMID_MODEL names nothing.
std::optional<std::filesystem::path> find_default_model();

} // namespace pyramid
