#pragma once
// Where the tools look for a model when none is named: $PYRAMID_MODEL alone when it is set
// (a missing file is an error, never passed over), else the user's data folder
// (<data>/models), then the shared models folder (<shared>/models: /usr/share/pyramidchat
// for the packages, ../shared beside a source checkout).
#include <filesystem>
#include <string>
#include <vector>

namespace pyramid {

// The folders searched, in order.
std::vector<std::filesystem::path> default_model_dirs();

// The models in those folders, in search order: in each folder, the default model
// (SmolLM2-135M-Instruct, model/default_model.h) first, then stories260K.gguf, then the others
// in name order. A model is a .gguf file this user can read that starts with a GGUF header
// and has tensors (not a text file, not a tokenizer's vocabulary alone), or a folder with
// config.json; other files are passed over.
std::vector<std::filesystem::path> default_model_candidates();

// The model to use when none is named. Throws pyramid::Error when $PYRAMID_MODEL names
// nothing, or when there is no model at all (the message names the folders searched).
std::filesystem::path find_default_model();

// For --help: what the default model is.
std::string default_model_help();

} // namespace pyramid
