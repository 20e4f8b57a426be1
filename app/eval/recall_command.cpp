#include "recall_command.h"

#include <chrono>
#include <cmath>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chat/prompt_format.h"
#include "eval/recall_eval.h"
#include "model/model.h"
#include "command_line.h"
#include "eval_report.h"
#include "model_search.h"
#include "output_file.h"
#include "recall_reference.h"
#include "sweep.h"
#include "util/error.h"
#include "util/json_input.h"
#include "util/logging.h"
#include "util/text_input.h"

namespace pyramid {
namespace {

struct LoadedCase {
    RecallCase recall;
    nlohmann::json meta;  // the line's other keys
};

std::string string_field(const nlohmann::json& j, const char* key, const std::string& where, bool required)
{
    const auto it = j.find(key);
    if (it == j.end()) {
        if (required)
            throw Error(where + " has no \"" + key + "\"");
        return {};
    }
    if (!it->is_string())
        throw Error(where + ": \"" + key + "\" must be a string, found " + json_excerpt(*it));
    return it->get<std::string>();
}

LoadedCase parse_case(const std::string& line, const std::string& where)
{
    const nlohmann::json j = parse_json_document(line, where);
    if (!j.is_object())
        throw Error(where + " is not a JSON object");
    LoadedCase c;
    c.recall.id = string_field(j, "id", where, true);
    c.recall.conversation.system_prompt = string_field(j, "system", where, false);
    c.recall.lead_in = string_field(j, "lead_in", where, true);
    c.recall.answer = string_field(j, "answer", where, true);
    const auto messages = j.find("messages");
    if (messages == j.end() || !messages->is_array() || messages->empty())
        throw Error(where + ": \"messages\" must be a non-empty array");
    for (const nlohmann::json& m : *messages) {
        if (!m.is_object())
            throw Error(where + ": a message must be an object, found " + json_excerpt(m));
        const std::string role = string_field(m, "role", where + " message", true);
        if (role != "user" && role != "assistant")
            throw Error(where + ": unknown role " + json_excerpt(role) + " (user or assistant)");
        c.recall.conversation.messages.push_back(
            {role == "user" ? ChatRole::User : ChatRole::Assistant, string_field(m, "content", where + " message", true)});
    }
    for (const auto& [key, value] : j.items())
        if (key != "id" && key != "system" && key != "lead_in" && key != "answer" && key != "messages")
            c.meta[key] = value;
    return c;
}

struct RunTotals {
    int recalled = 0;
    double logprob = 0, kv = 0, full_kv = 0;
    std::vector<double> logprobs;  // per case, for the paired difference with full
};

} // namespace

RecallCommand::RecallCommand(CLI::App& parent)
    : app_(parent.add_subcommand("recall", "Recall of earlier context (facts, passkeys) under each KV-cache policy."))
{
    app_->add_option("-m,--model", model_path_, "GGUF file or Hugging Face folder (default: as pyramid-cli)");
    app_->add_option("--cases", cases_path_, "JSON Lines file of cases (bench/make_recall_cases.py)")
        ->required()
        ->check(CLI::ExistingFile);
    app_->add_option("--mode", modes_, "extend, rebuild, or both: extend,rebuild")
        ->delimiter(',')
        ->check(CLI::IsMember({"extend", "rebuild"}))
        ->capture_default_str();
    app_->add_option("--limit", limit_, "use the first N cases (0: all)")->check(pyramid::whole_number(0, 1 << 20));
    app_->add_option("--sweep-decay", sweep_decay_, "pyramid at each decay ratio (see ppl)")->delimiter(',');
    app_->add_option("--sweep-fraction", sweep_fraction_, "local, h2o, snapkv and pyramidkv at each fraction of full")
        ->delimiter(',');
    app_->add_option("--json", json_path_, "write the per-case results as JSON here");
    app_->add_option("--reference", reference_path_,
                     "take the full cache's scores from this earlier --json (the same cases, model and modes) "
                     "instead of scoring them again")
        ->check(CLI::ExistingFile);
    compression_.add_to(*app_);
    device_.add_to(*app_);
}

int RecallCommand::run()
{
    init_logging({false, true, "pyramid-eval"});
    std::vector<LoadedCase> cases;
    std::vector<CompressionConfig> configs;
    try {
        configs = compression_.resolve_all();
        if (model_path_.empty())
            model_path_ = find_default_model().string();
        // A case is a few thousand tokens of text: 256 MiB holds thousands.
        std::istringstream lines(read_text_file(cases_path_, size_t{256} << 20, "the recall cases " + cases_path_));
        int number = 0;
        for (std::string line; std::getline(lines, line);) {
            ++number;
            if (line.find_first_not_of(" \t\r") == std::string::npos)
                continue;
            cases.push_back(parse_case(line, fmt::format("{} line {}", cases_path_, number)));
            if (limit_ > 0 && static_cast<int>(cases.size()) == limit_)
                break;
        }
        if (cases.empty())
            throw Error(cases_path_ + " has no cases");
        if (!json_path_.empty())
            check_writable(json_path_);
    } catch (const Error& e) {
        fmt::print(stderr, "pyramid-eval recall: {}\n", e.what());
        return 2;
    }
    std::shared_ptr<Model> model;
    try {
        model = Model::open(model_path_, device_.options());
    } catch (const std::exception& e) {
        fmt::print(stderr, "pyramid-eval recall: {}\n", e.what());
        return 3;
    }
    std::vector<RecallTokens> tokens;
    std::map<std::string, std::vector<RecallScore>> reference;  // by mode, when --reference is given
    std::vector<EvalRun> runs;
    try {
        const PromptFormatChoice format =
            choose_prompt_format(model->files().chat_template, model->path().filename().string());
        if (format.format == PromptFormat::Raw)
            throw Error("the model has no chat format: recall cases are conversations");
        const ChatTemplate chat(model->tokenizer(), format.format);
        for (const LoadedCase& c : cases) {
            tokens.push_back(recall_tokens(chat, model->tokenizer(), c.recall));
            if (tokens.back().total() > model->config().context_length)
                throw Error(fmt::format("recall case {} has {} tokens; the model's context holds {}", c.recall.id,
                                        tokens.back().total(), model->config().context_length));
        }
        // A sweep sets the policies itself; without one, each named policy runs beside one full
        // reference.
        const SweepOptions sweep{sweep_decay_, {}, sweep_fraction_};
        const int n_layers = model->config().n_layers;
        if (!sweep.empty())
            configs.resize(1);
        for (const CompressionConfig& config : configs)
            for (EvalRun& run : plan_runs(config, sweep, n_layers))
                if (runs.empty() || run.series != kSeriesFull)
                    runs.push_back(std::move(run));
        if (!reference_path_.empty()) {
            const nlohmann::json report =
                parse_json_document(read_text_file(reference_path_, size_t{256} << 20, "the reference " + reference_path_),
                                    "the reference " + reference_path_);
            std::vector<RecallCaseKey> keys;
            for (size_t i = 0; i < cases.size(); ++i)
                keys.push_back({cases[i].recall.id, tokens[i].total()});
            for (const std::string& mode : modes_)
                reference[mode] = reference_full_scores(report, reference_path_, model_path_, mode, keys);
        }
    } catch (const Error& e) {
        fmt::print(stderr, "pyramid-eval recall: {}\n", e.what());
        return 2;
    }
    fmt::print(stderr, "[recall] {} cases, {} runs x {} modes\n", cases.size(), runs.size(), modes_.size());

    fmt::print("| run | mode | recalled | answer log-prob (mean) | Δ log-prob vs full (± s.e.) | KV bytes / full |\n"
               "|---|---|---:|---:|---:|---:|\n");
    nlohmann::json results = nlohmann::json::array();
    try {
        for (const std::string& mode_name : modes_) {
            const RecallMode mode = mode_name == "extend" ? RecallMode::Extend : RecallMode::Rebuild;
            std::vector<double> full_logprobs;
            for (const EvalRun& run : runs) {
                const auto start = std::chrono::steady_clock::now();
                RunTotals totals;
                nlohmann::json per_case = nlohmann::json::array();
                const bool from_reference = run.series == kSeriesFull && reference.count(mode_name) > 0;
                for (size_t i = 0; i < cases.size(); ++i) {
                    fmt::print(stderr, "\r{} {}: case {}/{}", run.label, mode_name, i + 1, cases.size());
                    const RecallScore s = from_reference ? reference.at(mode_name)[i]
                                                         : score_recall(model->backend(), run.config, tokens[i], mode);
                    // The reference's full cache must be this run's: a file scored with another
                    // KV type (or model shape) held other bytes for the same tokens.
                    if (!from_reference && reference.count(mode_name) > 0 &&
                        s.full_kv_bytes != reference.at(mode_name)[i].full_kv_bytes)
                        throw Error(fmt::format("the reference {} held {} bytes of full cache for case {}, this run "
                                                "{}: it was scored with another KV type or model",
                                                reference_path_, reference.at(mode_name)[i].full_kv_bytes,
                                                cases[i].recall.id, s.full_kv_bytes));
                    totals.recalled += s.recalled;
                    totals.logprob += s.answer_logprob;
                    totals.kv += static_cast<double>(s.kv_bytes);
                    totals.full_kv += static_cast<double>(s.full_kv_bytes);
                    totals.logprobs.push_back(s.answer_logprob);
                    per_case.push_back({{"id", cases[i].recall.id},
                                        {"tokens", tokens[i].total()},
                                        {"answer_logprob", s.answer_logprob},
                                        {"recalled", s.recalled},
                                        {"kv_bytes", s.kv_bytes},
                                        {"full_kv_bytes", s.full_kv_bytes},
                                        {"meta", cases[i].meta}});
                }
                if (run.series == kSeriesFull)
                    full_logprobs = totals.logprobs;
                const double n = static_cast<double>(cases.size());
                const PairedDelta delta = paired_delta(totals.logprobs, full_logprobs);
                const double seconds =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                fmt::print(stderr, "\r{} {}: {}/{} recalled ({:.1f} s)\n", run.label, mode_name, totals.recalled,
                           cases.size(), seconds);
                fmt::print("| {} | {} | {}/{} ({:.1f}%) | {:.3f} | {:+.3f} ± {:.3f} | {:.3f} |\n", run.label, mode_name,
                           totals.recalled, cases.size(), 100.0 * totals.recalled / n, totals.logprob / n, delta.mean,
                           delta.standard_error,
                           totals.kv / totals.full_kv);
                std::fflush(stdout);
                results.push_back({{"label", run.label},
                                   {"series", run.series},
                                   {"policy", to_string(run.config.policy)},
                                   {"parameters", run.parameters},
                                   {"mode", mode_name},
                                   {"config", nlohmann::json::parse(compression_config_to_json(run.config))},
                                   {"recalled", totals.recalled},
                                   {"cases", cases.size()},
                                   {"mean_answer_logprob", totals.logprob / n},
                                   {"delta_logprob_vs_full", delta.mean},
                                   {"delta_standard_error", delta.standard_error},
                                   {"kv_fraction", totals.kv / totals.full_kv},
                                   {"seconds", seconds},
                                   {"per_case", per_case}});
                if (from_reference)
                    results.back()["reference"] = reference_path_;
            }
        }
    } catch (const std::exception& e) {
        fmt::print(stderr, "\npyramid-eval recall: {}\n", e.what());
        return 4;
    }
    if (!json_path_.empty()) {
        try {
            write_text_file(json_path_,
                            nlohmann::json{{"model", model_path_}, {"cases", cases_path_}, {"runs", results}}.dump(1) +
                                '\n');
        } catch (const Error& e) {
            fmt::print(stderr, "pyramid-eval recall: {}\n", e.what());
            return 4;
        }
    }
    return 0;
}

} // namespace pyramid
