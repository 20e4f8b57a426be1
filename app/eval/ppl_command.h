#pragma once
// `pyramid-eval ppl`: the perplexity protocol (perplexity.h) over a text file for one policy or
// a sweep (sweep.h). The tables go to stdout, progress to stderr; JSON and plots on request.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "engine_options.h"
#include "text_windows.h"

namespace pyramid {

class PplCommand {
public:
    explicit PplCommand(CLI::App& parent);  // registers the subcommand and its options
    bool chosen() const { return app_->parsed(); }
    // Exit codes: 0 done, 2 bad options or input, 3 the model failed to load, 4 a run failed.
    int run();

private:
    CLI::App* app_;
    std::string model_path_, text_path_, json_path_, plot_dir_, lengths_run_;
    std::string align_ = "tokens";
    std::string protocol_ = "pyramid";
    int llama_ctx_ = 0;     // --protocol llama.cpp: llama-perplexity's -c
    int llama_chunks_ = 0;  // and its --chunks
    WindowOptions windows_;
    std::vector<double> sweep_decay_;
    std::vector<int> sweep_budget_;
    std::vector<double> sweep_fraction_;
    CompressionOptions compression_{"pyramid"};
    DeviceOption device_{KvPrecision::F32};
    bool verbose_ = false;
};

} // namespace pyramid
