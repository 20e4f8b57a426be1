// pyramid-cli: chat with a model in the terminal, or run one prompt. Generated text goes to
// stdout and nothing else does; logs, prompts and statistics go to stderr.
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <random>
#include <string>

#include <fmt/format.h>

#include "chat/local_chat_engine.h"
#include "command_line.h"
#include "engine_options.h"
#include "kv/compression_presets.h"
#include "model_search.h"
#include "util/error.h"
#include "util/json_input.h"
#include "util/text_input.h"
#include "util/logging.h"

namespace {

std::atomic<bool> g_cancel{false};    // set by SIGINT during a reply: stops the reply
std::atomic<bool> g_replying{false};

// Ctrl-C stops a running reply; at the prompt, or pressed again while a reply stops, it quits
// (exit status 130, as a shell reports an interrupted program).
void on_interrupt(int)
{
    if (g_replying.load() && !g_cancel.load()) {
        g_cancel.store(true);
        return;
    }
    const char newline = '\n';
    (void)!write(STDERR_FILENO, &newline, 1);
    _exit(130);
}

// Python's str.strip() set, as the chat format strips messages: such a line would be an empty turn.
bool blank(const std::string& text) { return text.find_first_not_of(" \t\n\r\v\f") == std::string::npos; }

// One message from the terminal: a line ending in a backslash goes on on the next line.
// False at end of input with nothing read.
bool read_message(std::string& message, bool prompt_user)
{
    message.clear();
    for (std::string line;;) {
        if (!std::getline(std::cin, line))
            return !message.empty();
        if (!line.empty() && line.back() == '\\') {
            line.pop_back();
            message += line + "\n";
            if (prompt_user)
                fmt::print(stderr, ". ");
            continue;
        }
        message += line;
        return true;
    }
}


std::string join(const std::vector<int>& values)
{
    std::string out;
    for (int v : values)
        out += (out.empty() ? "" : " ") + std::to_string(v);
    return out;
}

void print_prefill_stats(const pyramid::GenerationStats& s)
{
    fmt::print(stderr, "[prefill] {} tokens in {:.1f} ms; KV entries per layer: {} (full: {}); KV {:.1f} KiB of {:.1f} KiB\n",
               s.prompt_tokens, s.prefill_ms, join(s.layer_kv_lengths), s.full_kv_length, s.kv_bytes / 1024.0,
               s.full_kv_bytes / 1024.0);
}

void print_final_stats(const pyramid::ChatResult& r)
{
    const pyramid::GenerationStats& s = r.stats;
    const double saving = s.full_kv_bytes ? 100.0 * (1.0 - double(s.kv_bytes) / double(s.full_kv_bytes)) : 0.0;
    fmt::print(stderr,
               "[stats] {} tokens generated, {:.2f} tokens/s, time to first token {:.1f} ms; "
               "KV entries per layer: {} (full: {}), {:.1f}% smaller than a full cache\n",
               s.generated_tokens, s.decode_tokens_per_second, s.time_to_first_token_ms, join(s.layer_kv_lengths),
               s.full_kv_length, saving);
}

// Runs one reply and keeps what it said in the conversation; returns how it ended.
pyramid::FinishReason answer(pyramid::ChatEngine& engine, pyramid::ChatRequest& request)
{
    g_cancel.store(false);
    g_replying.store(true);
    pyramid::StreamCallbacks callbacks;
    callbacks.on_text = [](const std::string& text) {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
    };
    callbacks.on_stats = [](const pyramid::GenerationStats& s) {
        if (s.phase == pyramid::GenerationPhase::Decode && s.generated_tokens == 0)
            print_prefill_stats(s);
    };
    const pyramid::ChatResult result = engine.reply(request, callbacks, g_cancel);
    g_replying.store(false);
    if (!result.text.empty()) {
        std::fputc('\n', stdout);
        std::fflush(stdout);
    }
    if (result.notice)
        fmt::print(stderr, "[note] {}\n", describe(result.notice));
    using pyramid::FinishReason;
    if (result.text.empty() && (result.reason == FinishReason::Error || result.reason == FinishReason::ContextFull)) {
        // Refused, or failed before a word: the question is taken back.
        fmt::print(stderr, "pyramid-cli: {}\n",
                   result.error.empty() ? "the conversation no longer fits the model's context" : result.error);
        // Earlier turns could make room; a message too long on its own cannot be helped so.
        if (result.reason == FinishReason::ContextFull && request.overflow == pyramid::OverflowPolicy::Stop &&
            !(result.shortfall && result.shortfall->message_too_long))
            fmt::print(stderr, "pyramid-cli: to go on, restart with --overflow drop-oldest or --overflow reencode\n");
        request.conversation.messages.pop_back();
        return result.reason;
    }
    switch (result.reason) {
    case FinishReason::Cancelled: fmt::print(stderr, "[stopped]\n"); break;
    case FinishReason::ContextFull: fmt::print(stderr, "[cut off: the reply reached the end of the model's context]\n"); break;
    case FinishReason::MaxTokens: fmt::print(stderr, "[reached --max-tokens]\n"); break;
    case FinishReason::Error: fmt::print(stderr, "pyramid-cli: the reply failed midway: {}\n", result.error); break;
    case FinishReason::EndOfSequence: break;
    }
    print_final_stats(result);
    request.conversation.messages.push_back({pyramid::ChatRole::Assistant, result.text});
    return result.reason;
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app{"Chat with a LLaMA model in the terminal, with PyramidInfer KV-cache compression.", "pyramid-cli"};
    std::string model_path, prompt, system_prompt, format = "auto";
    bool raw = false, verbose = false, ignore_eos = false, json = false;
    int max_tokens = 256;
    app.add_option("-m,--model", model_path, "GGUF file or Hugging Face folder (" + pyramid::default_model_help() + ")");
    auto* prompt_option = app.add_option("-p,--prompt", prompt,
                                         "answer this one prompt and exit; - reads it from standard input "
                                         "(default: interactive chat, one message per line, \\ at the end goes on)");
    app.add_option("-s,--system", system_prompt, "system prompt (none unless given: no format adds one)");
    std::vector<std::string> format_names{"auto", "chat"};
    for (const pyramid::PromptFormat f : pyramid::all_prompt_formats())
        format_names.emplace_back(pyramid::prompt_format_name(f));
    auto* format_option =
        app.add_option("--format", format,
                       "prompt format: auto (the file's chat template; without one, llama-2-chat when the file or "
                       "model name says chat or instruct, else raw), chat (the file's chat format even for a base "
                       "model's name), raw (plain text after BOS), or a format by name")
            ->check(CLI::IsMember(format_names))
            ->capture_default_str();
    app.add_flag("--raw", raw, "the same as --format raw")->excludes(format_option);
    app.add_option("-n,--max-tokens", max_tokens, "most tokens to generate per reply")
        ->check(pyramid::whole_number(1, 1 << 20))
        ->capture_default_str();
    app.add_flag("--ignore-eos", ignore_eos, "go on past the end-of-text tokens (EOS, and BOS that starts a new text)");
    auto* json_flag = app.add_flag("--json", json,
                                   "JSON mode: each reply is one JSON object, drawn only from tokens that keep it "
                                   "one, and ends at its closing brace (or unfinished at --max-tokens)");
    std::string json_schema_file;
    app.add_option("--json-schema", json_schema_file,
                   "structured output: each reply is a value of the JSON schema in this file (properties in its "
                   "order; a keyword that could not be held to is an error), and ends with it")
        ->excludes(json_flag);
    std::string context_mode = "extend", overflow = "stop";
    app.add_option("--context-mode", context_mode,
                   "next turn: extend the compressed cache, or rebuild it from the whole conversation")
        ->check(CLI::IsMember({"extend", "rebuild"}))
        ->capture_default_str();
    app.add_option("--overflow", overflow,
                   "when the conversation outgrows the context: stop, drop-oldest turns, or reencode positions")
        ->check(CLI::IsMember({"stop", "drop-oldest", "reencode"}))
        ->capture_default_str();
    app.add_flag("-v,--verbose", verbose, "debug logging on stderr");
    pyramid::SamplingOptions sampling(pyramid::chat_sampling());
    sampling.add_to(app);
    // PyramidInfer's recall preset by default, as in the desktop app (one default for the
    // project's chat programs); --policy full keeps the cache whole, whose greedy output is the
    // model's own.
    pyramid::CompressionOptions compression("pyramid", false, pyramid::kChatCompressionPreset);
    compression.add_to(app);
    pyramid::DeviceOption device(pyramid::KvPrecision::F16);
    device.add_to(app);

    if (const auto status = pyramid::parse_command_line(app, argc, argv, "pyramid-cli"))
        return *status;
    pyramid::init_logging({verbose, true, "pyramid-cli"});

    pyramid::ChatRequest request;
    pyramid::BackendOptions backend;
    try {
        request.compression = compression.resolve();
        if (model_path.empty())
            model_path = pyramid::find_default_model().string();
        request.sampling = sampling.params();
        if (request.sampling.seed == 0 && request.sampling.temperature > 0.0f) {
            // A drawn seed is said, so a run worth keeping can be repeated.
            std::random_device entropy;
            request.sampling.seed = (uint64_t(entropy()) << 32 | entropy()) >> 1 | 1;
            fmt::print(stderr, "[seed] {0} (--seed {0} repeats this run)\n", request.sampling.seed);
        }
        request.max_new_tokens = max_tokens;
        request.ignore_eos = ignore_eos;
        if (!json_schema_file.empty()) {
            const std::string text = pyramid::read_text_file(json_schema_file);
            pyramid::parse_json_document(text, json_schema_file);  // the limits, duplicate keys
            try {
                request.json = pyramid::JsonSchema::compile(nlohmann::ordered_json::parse(text));
            } catch (const pyramid::Error& e) {
                throw pyramid::Error(json_schema_file + ": " + e.what());
            }
        } else if (json) {
            request.json = pyramid::JsonSchema::any_object();
        }
        if (raw)
            format = "raw";
        if (prompt_option->count() > 0 && prompt == "-")
            prompt = pyramid::read_text_input(std::cin, "standard input");
        if (prompt_option->count() > 0 && blank(prompt))
            throw pyramid::Error("the prompt is empty");
        request.conversation.system_prompt = system_prompt;
        request.context_mode = context_mode == "extend" ? pyramid::ContextMode::Extend : pyramid::ContextMode::Rebuild;
        request.overflow = overflow == "stop"          ? pyramid::OverflowPolicy::Stop
                           : overflow == "drop-oldest" ? pyramid::OverflowPolicy::DropOldestTurns
                                                       : pyramid::OverflowPolicy::Reencode;
        backend = device.options();
    } catch (const pyramid::Error& e) {
        fmt::print(stderr, "pyramid-cli: {}\n", e.what());
        return 2;
    }

    pyramid::LocalChatEngine engine(backend);
    try {
        const std::atomic<bool> never{false};
        const pyramid::ModelInfo info = engine.load_model(model_path, {}, never);
        fmt::print(stderr, "[model] {} ({}, {} layers, context {}) on {}{}\n", info.name, info.format,
                   info.n_layers, info.context_length, info.backend,
                   info.backend_note.empty() ? "" : " — " + info.backend_note);
        const pyramid::PromptFormatChoice likely = pyramid::likely_prompt_format(info);
        if (!likely.notice.empty())
            fmt::print(stderr, "[notice] {}\n", likely.notice);
        if (format == "auto") {
            request.format = likely.format;
            const char* why = !info.chat_template.empty() && likely.notice.empty() ? "the file's chat template"
                              : request.format == pyramid::PromptFormat::Raw ? "a base model by its name"
                                                                             : "a chat model by its name";
            fmt::print(stderr, "[format] {} ({}; --format chooses another)\n",
                       pyramid::prompt_format_name(request.format), why);
        } else if (format == "chat") {
            request.format = likely.format == pyramid::PromptFormat::Raw
                                 ? pyramid::choose_prompt_format(info.chat_template, "chat").format
                                 : likely.format;
        } else {
            request.format = *pyramid::prompt_format_from_name(format);
        }
    } catch (const std::exception& e) {
        fmt::print(stderr, "pyramid-cli: {}\n", e.what());
        return 3;
    }
    try {
        request.compression.validate_for(engine.model_info().n_layers);  // --budgets: one per layer
        if (request.format == pyramid::PromptFormat::Raw && !system_prompt.empty())
            throw pyramid::Error("--system has no place in the raw format: base models have no system prompt "
                                 "(--format chat to use one)");
    } catch (const pyramid::Error& e) {
        fmt::print(stderr, "pyramid-cli: {}\n", e.what());
        return 2;
    }
    std::signal(SIGINT, on_interrupt);

    if (prompt_option->count() > 0) {
        request.conversation.messages.push_back({pyramid::ChatRole::User, prompt});
        const pyramid::FinishReason reason = answer(engine, request);
        const bool answered = request.conversation.messages.size() == 2;
        if (reason == pyramid::FinishReason::Error || (reason == pyramid::FinishReason::ContextFull && !answered))
            return 4;
        return reason == pyramid::FinishReason::Cancelled ? 130 : 0;
    }
    // From a terminal the user is prompted; from a pipe or file each line is a turn, and the
    // exit status says whether every one was answered.
    const bool terminal = isatty(STDIN_FILENO);
    if (terminal)
        fmt::print(stderr, "Interactive chat: type a message and press Enter (end a line with \\ to go on on the "
                           "next); Ctrl-C stops a reply, Ctrl-C at the prompt or Ctrl-D quits.\n");
    bool all_answered = true;
    for (std::string message;;) {
        if (terminal)
            fmt::print(stderr, "> ");
        if (!read_message(message, terminal)) {
            if (terminal)
                fmt::print(stderr, "\n");
            break;
        }
        if (blank(message))
            continue;
        const size_t before = request.conversation.messages.size();
        request.conversation.messages.push_back({pyramid::ChatRole::User, message});
        const pyramid::FinishReason reason = answer(engine, request);
        if (reason == pyramid::FinishReason::Error || request.conversation.messages.size() == before)
            all_answered = false;
    }
    return all_answered ? 0 : 4;
}
