#include "multi_turn_command.h"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "eval/multi_turn_eval.h"
#include "model/model.h"
#include "command_line.h"
#include "model_search.h"
#include "output_file.h"
#include "text_windows.h"
#include "util/error.h"
#include "util/text_input.h"
#include "util/logging.h"

namespace pyramid {
namespace {

// One story's tokens (BOS first) cut into turns of prompt + reply.
Transcript cut_transcript(const std::vector<int32_t>& window, int turns, int prompt, int reply)
{
    Transcript t;
    size_t at = 0;
    for (int turn = 0; turn < turns; ++turn) {
        const size_t p = static_cast<size_t>(prompt) + (turn == 0 ? 1 : 0);  // BOS rides with turn 0
        t.prompts.emplace_back(window.begin() + static_cast<ptrdiff_t>(at), window.begin() + static_cast<ptrdiff_t>(at + p));
        at += p;
        t.replies.emplace_back(window.begin() + static_cast<ptrdiff_t>(at),
                               window.begin() + static_cast<ptrdiff_t>(at + static_cast<size_t>(reply)));
        at += static_cast<size_t>(reply);
    }
    return t;
}

struct TurnSummary {
    int conversation_tokens = 0;
    double extend_ms = 0, rebuild_ms = 0;
    double extend_kv = 0, rebuild_kv = 0, full_kv = 0;
    double extend_nll = 0, rebuild_nll = 0, agreement = 0;
};

} // namespace

MultiTurnCommand::MultiTurnCommand(CLI::App& parent)
    : app_(parent.add_subcommand("multiturn", "Extend vs rebuild of a compressed cache over multi-turn transcripts."))
{
    app_->add_option("-m,--model", model_path_, "GGUF file or Hugging Face folder (default: as pyramid-cli)");
    app_->add_option("--text", text_path_, "text to cut transcripts from (one story per transcript)")
        ->required()
        ->check(CLI::ExistingFile);
    app_->add_option("--story-prefix", paragraph_prefix_, "a transcript starts at a paragraph beginning with this")
        ->capture_default_str();
    app_->add_option("--turns", turns_, "turns per transcript")->check(pyramid::whole_number(1, 64))->capture_default_str();
    app_->add_option("--prompt-tokens", prompt_tokens_, "user tokens per turn")
        ->check(pyramid::whole_number(1, 1 << 16))
        ->capture_default_str();
    app_->add_option("--reply-tokens", reply_tokens_, "reference reply tokens per turn (scored)")
        ->check(pyramid::whole_number(1, 1 << 16))
        ->capture_default_str();
    app_->add_option("--transcripts", transcripts_, "number of transcripts")
        ->check(pyramid::whole_number(1, 1 << 16))
        ->capture_default_str();
    app_->add_option("--json", json_path_, "write the per-turn results as JSON");
    compression_.add_to(*app_);
    device_.add_to(*app_);
}

int MultiTurnCommand::run()
{
    init_logging({false, true, "pyramid-eval"});
    CompressionConfig config;
    std::shared_ptr<Model> model;
    std::vector<std::vector<int32_t>> windows;
    try {
        config = compression_.resolve();
        if (model_path_.empty())
            model_path_ = find_default_model().string();
        if (!json_path_.empty())
            check_writable(json_path_);
    } catch (const Error& e) {
        fmt::print(stderr, "pyramid-eval: {}\n", e.what());
        return 2;
    }
    try {
        model = Model::open(model_path_, device_.options());
    } catch (const std::exception& e) {
        fmt::print(stderr, "pyramid-eval: {}\n", e.what());
        return 3;
    }
    try {
        const std::string text = read_text_file(text_path_);
        config.validate_for(model->config().n_layers);
        WindowOptions options;
        options.prefill = turns_ * (prompt_tokens_ + reply_tokens_);
        if (const int context = model->config().context_length; 1 + options.prefill > context)
            throw Error(fmt::format("{} turns of {} + {} tokens need {} positions, after BOS; the model's context "
                                    "holds {}", turns_, prompt_tokens_, reply_tokens_, 1 + options.prefill, context));
        options.continuation = 1;
        options.count = transcripts_;
        options.align = WindowAlign::Paragraphs;
        options.paragraph_prefix = paragraph_prefix_;
        windows = make_windows(text, model->tokenizer(), options);
    } catch (const Error& e) {
        fmt::print(stderr, "pyramid-eval: {}\n", e.what());
        return 2;
    }

    std::vector<TurnSummary> sums(static_cast<size_t>(turns_));
    try {
        for (size_t w = 0; w < windows.size(); ++w) {
            fmt::print(stderr, "\rtranscript {}/{}", w + 1, windows.size());
            const auto turns = measure_multi_turn(model->backend(), config,
                                                  cut_transcript(windows[w], turns_, prompt_tokens_, reply_tokens_));
            for (const TurnMeasurement& m : turns) {
                TurnSummary& s = sums[static_cast<size_t>(m.turn)];
                s.conversation_tokens = m.conversation_tokens;
                s.extend_ms += m.extend_prompt_ms;
                s.rebuild_ms += m.rebuild_prompt_ms;
                s.extend_kv += static_cast<double>(m.extend_kv_bytes);
                s.rebuild_kv += static_cast<double>(m.rebuild_kv_bytes);
                s.full_kv += static_cast<double>(m.full_kv_bytes);
                s.extend_nll += m.extend_nll;
                s.rebuild_nll += m.rebuild_nll;
                s.agreement += m.argmax_agreement;
            }
        }
        fmt::print(stderr, "\n");
    } catch (const std::exception& e) {
        fmt::print(stderr, "\npyramid-eval: {}\n", e.what());
        return 4;
    }

    const double n = static_cast<double>(windows.size());
    fmt::print("| turn | conversation tokens | TTFT extend (ms) | TTFT rebuild (ms) | KV extend / full | KV rebuild / full "
               "| PPL extend | PPL rebuild | argmax agreement |\n|---|---|---|---|---|---|---|---|---|\n");
    nlohmann::json turns_json = nlohmann::json::array();
    for (size_t t = 0; t < sums.size(); ++t) {
        const TurnSummary& s = sums[t];
        const double ppl_e = std::exp(s.extend_nll / n), ppl_r = std::exp(s.rebuild_nll / n);
        fmt::print("| {} | {} | {:.2f} | {:.2f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} |\n", t + 1,
                   s.conversation_tokens, s.extend_ms / n, s.rebuild_ms / n, s.extend_kv / s.full_kv,
                   s.rebuild_kv / s.full_kv, ppl_e, ppl_r, s.agreement / n);
        turns_json.push_back({{"turn", t + 1},
                              {"conversation_tokens", s.conversation_tokens},
                              {"ttft_ms_extend", s.extend_ms / n},
                              {"ttft_ms_rebuild", s.rebuild_ms / n},
                              {"kv_bytes_extend", s.extend_kv / n},
                              {"kv_bytes_rebuild", s.rebuild_kv / n},
                              {"kv_bytes_full", s.full_kv / n},
                              {"ppl_extend", ppl_e},
                              {"ppl_rebuild", ppl_r},
                              {"argmax_agreement", s.agreement / n}});
    }
    if (!json_path_.empty()) {
        const nlohmann::json doc{{"model", model_path_},
                                 {"text", text_path_},
                                 {"transcripts", windows.size()},
                                 {"turns", turns_},
                                 {"prompt_tokens", prompt_tokens_},
                                 {"reply_tokens", reply_tokens_},
                                 {"config", nlohmann::json::parse(compression_config_to_json(config))},
                                 {"per_turn", turns_json}};
        try {
            write_text_file(json_path_, doc.dump(2) + '\n');
        } catch (const Error& e) {
            fmt::print(stderr, "pyramid-eval: {}\n", e.what());
            return 4;
        }
    }
    return 0;
}

} // namespace pyramid
