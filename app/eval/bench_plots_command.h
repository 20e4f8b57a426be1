#pragma once
// `pyramid-eval bench-plots RESULTS.json`: the plots of a pyramid-bench run (its --json),
// each as .svg and .png in --out:
//   bench_throughput   end-to-end throughput against batch size, one line per policy, the
//                      largest batch that fits marked on each
//   bench_kv_layers    per policy, the mean KV entries per sequence and layer at the peak of
//                      its largest run, inside the full cache's outline
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace pyramid {

// Throws pyramid::Error for a file that is not pyramid-bench JSON or a plot that cannot be
// written. Returns the files written.
std::vector<std::filesystem::path> write_bench_plots(const std::filesystem::path& results,
                                                     const std::filesystem::path& dir);

class BenchPlotsCommand {
public:
    explicit BenchPlotsCommand(CLI::App& parent);
    bool chosen() const { return app_->parsed(); }
    int run();  // 0 written, 2 bad input

private:
    CLI::App* app_;
    std::string results_, out_ = ".";
};

} // namespace pyramid
