#include "ppl_command.h"

#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "eval_report.h"
#include "model/model.h"
#include "command_line.h"
#include "model_search.h"
#include "output_file.h"
#include "perplexity.h"
#include "report_outputs.h"
#include "sweep.h"
#include "util/error.h"
#include "util/text_input.h"
#include "util/logging.h"

namespace pyramid {
PplCommand::PplCommand(CLI::App& parent)
    : app_(parent.add_subcommand("ppl", "Perplexity of KV-cache policies on a text file (teacher-forced decode)."))
{
    app_->add_option("-m,--model", model_path_, "GGUF file or Hugging Face folder (default: as pyramid-cli)");
    app_->add_option("--text", text_path_, "text file to score")->required()->check(CLI::ExistingFile);
    auto* prefill = app_->add_option("-P,--prefill", windows_.prefill, "tokens prefilled per window, BOS included")
                        ->check(pyramid::whole_number(1, 1 << 20))
                        ->capture_default_str();
    auto* continuation = app_->add_option("-C,--continuation", windows_.continuation, "tokens scored per window")
                             ->check(pyramid::whole_number(1, 1 << 20))
                             ->capture_default_str();
    auto* count = app_->add_option("--windows", windows_.count, "number of windows")
                      ->check(pyramid::whole_number(1, 1 << 20))
                      ->capture_default_str();
    auto* align = app_->add_option("--align", align_,
                                   "where windows start: tokens (consecutive pieces of the tokenized text) or paragraphs")
                      ->check(CLI::IsMember({"tokens", "paragraphs"}))
                      ->capture_default_str();
    auto* protocol =
        app_->add_option("--protocol", protocol_,
                         "pyramid (windows as -P, -C, --windows, --align say) or llama.cpp (llama-perplexity's "
                         "windows: consecutive chunks of --ctx tokens, the second half of each scored)")
            ->check(CLI::IsMember({"pyramid", "llama.cpp"}))
            ->capture_default_str();
    auto* ctx = app_->add_option("--ctx", llama_ctx_, "--protocol llama.cpp: tokens per chunk (llama-perplexity -c)")
                    ->check(pyramid::whole_number(4, 1 << 20));
    auto* chunks =
        app_->add_option("--chunks", llama_chunks_, "--protocol llama.cpp: chunks to score (llama-perplexity --chunks)")
            ->check(pyramid::whole_number(1, 1 << 20));
    for (auto* windowed : {prefill, continuation, count, align}) {
        ctx->excludes(windowed);
        chunks->excludes(windowed);
    }
    ctx->needs(protocol);
    chunks->needs(protocol);
    app_->add_option("--paragraph-prefix", windows_.paragraph_prefix,
                     "with --align paragraphs: only paragraphs starting with this text start a window");
    app_->add_option("--sweep-decay", sweep_decay_,
                     "pyramid at each decay ratio, plus local and h2o at the same KV bytes, plus full")
        ->delimiter(',');
    app_->add_option("--sweep-fraction", sweep_fraction_,
                     "local, h2o, snapkv and pyramidkv keeping each fraction of a full cache (with --sweep-decay, "
                     "that sweep runs pyramid alone)")
        ->delimiter(',');
    app_->add_option("--sweep-budget", sweep_budget_, "local and h2o with this many entries at every layer")
        ->delimiter(',');
    app_->add_option("--json", json_path_, "write the results as JSON here");
    app_->add_option("--plot-dir", plot_dir_, "write the plots here as SVG and PNG (see report_plots.h)");
    app_->add_option("--lengths-run", lengths_run_,
                     "label of the run whose per-layer lengths are plotted (default: most compressed pyramid run)");
    app_->add_flag("-v,--verbose", verbose_, "debug logging on stderr");
    compression_.add_to(*app_);
    device_.add_to(*app_);
}

int PplCommand::run()
{
    init_logging({verbose_, false, "pyramid-eval"});
    EvalReport report;
    std::string text;
    try {
        report.base = compression_.resolve();
        windows_.align = parse_window_align(align_);
        if (protocol_ == "llama.cpp") {
            if (llama_ctx_ == 0 || llama_chunks_ == 0)
                throw Error("--protocol llama.cpp needs --ctx and --chunks (as llama-perplexity -c N --chunks K)");
            windows_ = {llama_ctx_ / 2 + 1, llama_ctx_ - (llama_ctx_ / 2 + 1), llama_chunks_, WindowAlign::LlamaCpp, ""};
        } else if (llama_ctx_ != 0 || llama_chunks_ != 0) {
            throw Error("--ctx and --chunks belong to --protocol llama.cpp");
        }
        if (!windows_.paragraph_prefix.empty() && windows_.align != WindowAlign::Paragraphs)
            throw Error("--paragraph-prefix needs --align paragraphs");
        if (model_path_.empty())
            model_path_ = find_default_model().string();
        text = read_text_file(text_path_);
        if (!json_path_.empty())
            check_writable(json_path_);
        if (!plot_dir_.empty())
            create_folder(plot_dir_);
    } catch (const Error& e) {
        fmt::print(stderr, "pyramid-eval ppl: {}\n", e.what());
        return 2;
    }
    report.model = model_path_;
    report.text = text_path_;
    report.windows = windows_;

    std::shared_ptr<Model> model;
    try {
        model = Model::open(model_path_, device_.options());
    } catch (const std::exception& e) {
        fmt::print(stderr, "pyramid-eval ppl: {}\n", e.what());
        return 3;
    }
    std::vector<std::vector<int32_t>> windows;
    std::vector<EvalRun> runs;
    try {
        const int context = model->config().context_length;
        if (windows_.prefill + windows_.continuation - 1 > context)
            throw Error(fmt::format("P + C - 1 = {} positions do not fit the model's context of {}",
                                    windows_.prefill + windows_.continuation - 1, context));
        windows = make_windows(text, model->tokenizer(), windows_);
        runs = plan_runs(report.base, {sweep_decay_, sweep_budget_, sweep_fraction_}, model->config().n_layers);
        if (!lengths_run_.empty() &&
            std::none_of(runs.begin(), runs.end(), [&](const EvalRun& r) { return r.label == lengths_run_; }))
            throw Error("--lengths-run: no run is labelled \"" + lengths_run_ + "\"");
    } catch (const Error& e) {
        fmt::print(stderr, "pyramid-eval ppl: {}\n", e.what());
        return 2;
    }
    fmt::print(stderr, "[eval] {} on {}: {} windows of P={} + C={} tokens, {} runs\n", model_path_, text_path_,
               windows.size(), windows_.prefill, windows_.continuation, runs.size());

    try {
        for (size_t i = 0; i < runs.size(); ++i) {
            const auto start = std::chrono::steady_clock::now();
            PerplexityResult result =
                evaluate_perplexity(model->backend(), runs[i].config, windows, windows_.prefill);
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            fmt::print(stderr, "[{}/{}] {}: PPL {:.4f}, KV {:.3f} of full ({:.1f} s)\n", i + 1, runs.size(),
                       runs[i].label, result.perplexity, result.kv_fraction, seconds);
            report.runs.push_back({runs[i], std::move(result)});
        }
        write_report_outputs(report, {json_path_, plot_dir_, lengths_run_});
    } catch (const std::exception& e) {
        fmt::print(stderr, "pyramid-eval ppl: {}\n", e.what());
        return 4;
    }
    return 0;
}

} // namespace pyramid
