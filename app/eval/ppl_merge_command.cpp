#include "ppl_merge_command.h"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "eval_report.h"
#include "output_file.h"
#include "report_outputs.h"
#include "util/error.h"

namespace pyramid {
namespace {

EvalReport read_report(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw Error("cannot read " + path);
    const nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
    if (json.is_discarded())
        throw Error(path + " is not JSON");
    try {
        return report_from_json(json);
    } catch (const Error& e) {
        throw Error(path + ": " + e.what());
    }
}

} // namespace

PplMergeCommand::PplMergeCommand(CLI::App& parent)
    : app_(parent.add_subcommand("ppl-merge", "one perplexity report from several ppl --json files of the same windows"))
{
    app_->add_option("parts", parts_, "ppl --json files")->required()->check(CLI::ExistingFile);
    app_->add_option("--json", json_path_, "write the merged results as JSON here (may be one of the parts)");
    app_->add_option("--plot-dir", plot_dir_, "write the plots here as SVG and PNG (see report_plots.h)");
    app_->add_option("--lengths-run", lengths_run_,
                     "label of the run whose per-layer lengths are plotted (default: most compressed pyramid run)");
}

int PplMergeCommand::run()
{
    try {
        std::vector<EvalReport> parts;
        for (const std::string& path : parts_)
            parts.push_back(read_report(path));
        const EvalReport merged = merge_reports(parts);
        if (!lengths_run_.empty() && std::none_of(merged.runs.begin(), merged.runs.end(),
                                                  [&](const RunResult& r) { return r.run.label == lengths_run_; }))
            throw Error("--lengths-run: no run is labelled \"" + lengths_run_ + "\"");
        if (!json_path_.empty())
            check_writable(json_path_);
        if (!plot_dir_.empty())
            create_folder(plot_dir_);
        write_report_outputs(merged, {json_path_, plot_dir_, lengths_run_});
        return 0;
    } catch (const Error& e) {
        fmt::print(stderr, "pyramid-eval ppl-merge: {}\n", e.what());
        return 2;
    }
}

} // namespace pyramid
