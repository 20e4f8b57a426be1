#pragma once
// `pyramid-eval ppl-merge PART.json...`: one report from the JSON of `ppl` runs that scored the
// same windows with different policies (a long prompt's sweep run one budget per process), with
// the tables, JSON and plots `ppl` itself writes (report_outputs.h). The parts are checked
// against each other as eval_report.h's merge_reports says. The output may replace a part.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace pyramid {

class PplMergeCommand {
public:
    explicit PplMergeCommand(CLI::App& parent);
    bool chosen() const { return app_->parsed(); }
    int run();  // 0 written, 2 a part unreadable, malformed or not matching the others

private:
    CLI::App* app_;
    std::vector<std::string> parts_;
    std::string json_path_, plot_dir_, lengths_run_;
};

} // namespace pyramid
