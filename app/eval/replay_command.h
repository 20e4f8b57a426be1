#pragma once
// `pyramid-eval replay CASE.json`: runs a golden-format case (core/eval/replay.h) and compares
// the result with the case. The verdict goes to stdout, every differing field to stderr.
#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>

#include "engine_options.h"
#include "eval/replay.h"

namespace pyramid {

// The model a case runs on: `given` when not empty, else the file the case names, looked up
// in the shared models folder. Throws pyramid::Error when neither gives an existing path.
std::filesystem::path resolve_replay_model(const ReplayRecord& the_case, const std::string& given);

class ReplayCommand {
public:
    explicit ReplayCommand(CLI::App& parent);  // registers the subcommand and its options
    bool chosen() const { return app_->parsed(); }
    // Exit codes: 0 the result matches, 1 fields differ, 2 bad options or case, 3 the model
    // failed to load or run.
    int run();

private:
    CLI::App* app_;
    std::string case_path_, out_path_, model_path_;
    double tolerance_ = 1e-4;
    DeviceOption device_{KvPrecision::F32};
};

} // namespace pyramid
