#include "report_outputs.h"

#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "output_file.h"
#include "plot_files.h"
#include "report_plots.h"

namespace pyramid {

void write_report_outputs(const EvalReport& report, const ReportOutputs& outputs)
{
    fmt::print("{}", markdown_table(report));
    if (const std::string comparison = markdown_comparison(report); !comparison.empty())
        fmt::print("\nAt equal KV bytes (paired over windows):\n\n{}", comparison);
    std::fflush(stdout);
    if (!outputs.json_path.empty())
        write_text_file(outputs.json_path, report_to_json(report).dump(2) + '\n');
    if (!outputs.plot_dir.empty()) {
        const OffscreenGui gui;
        for (const auto& file : write_report_plots(report, outputs.plot_dir, outputs.lengths_run))
            fmt::print(stderr, "[plot] {}\n", file.string());
    }
}

} // namespace pyramid
