#pragma once
// What `pyramid-eval ppl` and `ppl-merge` give for a finished report: the run table and the
// equal-bytes comparison (eval_report.h) on stdout, then the JSON and the plots
// (report_plots.h) where a path is given.
#include <string>

#include "eval_report.h"

namespace pyramid {

struct ReportOutputs {
    std::string json_path;    // empty: no JSON
    std::string plot_dir;     // empty: no plots
    std::string lengths_run;  // see write_report_plots
};

// Throws pyramid::Error when a file cannot be written or `lengths_run` names no run.
void write_report_outputs(const EvalReport& report, const ReportOutputs& outputs);

} // namespace pyramid
