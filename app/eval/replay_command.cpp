#include "replay_command.h"

#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/model.h"
#include "output_file.h"
#include "util/error.h"
#include "util/logging.h"

namespace pyramid {

std::filesystem::path resolve_replay_model(const ReplayRecord& the_case, const std::string& given)
{
    std::filesystem::path path = given;
    if (path.empty()) {
        if (the_case.model.empty())
            throw Error("the case names no model; pass --model");
        path = std::filesystem::path(PYRAMID_SHARED_DIR) / "models" / the_case.model;
    }
    if (!std::filesystem::exists(path))
        throw Error("model not found: " + path.string() + (given.empty() ? " (named by the case; pass --model)" : ""));
    return path;
}

ReplayCommand::ReplayCommand(CLI::App& parent)
    : app_(parent.add_subcommand("replay", "Replay a golden-format case and compare the result with it."))
{
    app_->add_option("case", case_path_, "case file (golden format, e.g. ../shared/golden/*.json)")
        ->required()
        ->check(CLI::ExistingFile);
    app_->add_option("--out", out_path_, "write the replayed result here (golden format)");
    app_->add_option("-m,--model", model_path_,
                     "model to run (default: the file the case names, in " PYRAMID_SHARED_DIR "/models)");
    app_->add_option("--tolerance", tolerance_, "largest relative error allowed in the logits")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    device_.add_to(*app_);
}

int ReplayCommand::run()
{
    init_logging({false, false, "pyramid-eval"});
    ReplayRecord expected;
    std::filesystem::path model_path;
    try {
        expected = load_replay_case(case_path_);
        model_path = resolve_replay_model(expected, model_path_);
        if (!out_path_.empty())
            check_writable(out_path_);
    } catch (const Error& e) {
        fmt::print(stderr, "pyramid-eval replay: {}\n", e.what());
        return 2;
    }
    const std::string name = expected.name.empty() ? case_path_ : expected.name;

    ReplayRecord actual;
    try {
        auto model = Model::open(model_path, device_.options());
        actual = run_replay(model->backend(), expected);
    } catch (const std::exception& e) {
        fmt::print(stderr, "pyramid-eval replay: {}: {}\n", name, e.what());
        return 3;
    }
    if (!out_path_.empty()) {
        try {
            write_text_file(out_path_, replay_record_to_json(actual).dump(1) + '\n');
        } catch (const Error& e) {
            fmt::print(stderr, "pyramid-eval replay: {}\n", e.what());
            return 4;
        }
    }

    const std::vector<std::string> diffs = compare_replay(expected, actual, tolerance_);
    for (const std::string& d : diffs)
        fmt::print(stderr, "pyramid-eval replay: {}: {}\n", name, d);
    if (!diffs.empty()) {
        fmt::print("{}: {} field(s) differ\n", name, diffs.size());
        return 1;
    }
    fmt::print("{}: matches ({} steps; logits relative error {:.2g} after prefill, {:.2g} at the end)\n", name,
               actual.greedy_tokens.size(), relative_error(actual.prefill_last_logits, expected.prefill_last_logits),
               relative_error(actual.final_logits, expected.final_logits));
    return 0;
}

} // namespace pyramid
