// pyramid-server: the model behind a local OpenAI-compatible HTTP API, every connection's
// request in one continuously batched run (http_api.h, serving_loop.h). Prints
// "listening on http://HOST:PORT" on stdout once it accepts connections (--port 0 takes a free
// port and says which); logs go to stderr. SIGINT, SIGTERM or SIGHUP stop it (exit status 0;
// a second signal ends it at once: util/stop_signals.h).
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "chat/chat_engine.h"
#include "command_line.h"
#include "engine_options.h"
#include "api_server.h"
#include "model/model.h"
#include "model_search.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/stop_signals.h"

namespace {

using namespace pyramid;

// --format as pyramid-cli reads it: auto (the file's chat template, else by the model's name),
// chat (the file's chat format even for a base model's name), or a format by name.
PromptFormat choose_format(const std::string& option, const Model& model)
{
    ModelInfo info;
    info.path = model.path().string();
    info.name = model.config().name;
    info.chat_template = model.files().chat_template;
    const PromptFormatChoice likely = likely_prompt_format(info);
    if (!likely.notice.empty())
        fmt::print(stderr, "[notice] {}\n", likely.notice);
    if (option == "auto")
        return likely.format;
    if (option == "chat")
        return likely.format == PromptFormat::Raw ? choose_prompt_format(info.chat_template, "chat").format
                                                  : likely.format;
    return *prompt_format_from_name(option);
}

// A GGUF file's size, or a Hugging Face folder's files together.
uint64_t model_storage_bytes(const std::filesystem::path& path)
{
    std::error_code error;
    if (std::filesystem::is_regular_file(path, error))
        return std::filesystem::file_size(path, error);
    uint64_t total = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(path, error))
        if (entry.is_regular_file(error))
            total += entry.file_size(error);
    return total;
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app{"Serve a LLaMA-family model over a local OpenAI-compatible HTTP API, with continuous batching and "
                 "PyramidInfer KV-cache compression.",
                 "pyramid-server"};
    std::string model_path, host = "127.0.0.1", api_key, format = "auto", cors_origin;
    int port = 8080, max_batch = 8, max_queue = 64, max_tokens = 256, max_prompt_tokens = 8192, kv_memory_mib = 0;
    size_t max_body = 1 << 20;
    bool verbose = false;
    app.add_option("-m,--model", model_path, "GGUF file or Hugging Face folder (" + default_model_help() + ")");
    app.add_option("--host", host, "address to listen on (loopback unless told otherwise)")->capture_default_str();
    app.add_option("--port", port, "TCP port (0: any free port, printed)")
        ->check(whole_number(0, 65535))
        ->capture_default_str();
    app.add_option("--api-key", api_key, "require Authorization: Bearer KEY on every request");
    app.add_option("--cors", cors_origin,
                   "let web pages from this origin (such as http://localhost:3000, or * for any) call the server "
                   "from a browser; without it browsers refuse them, so no web page can use the model")
        ->check([](const std::string& origin) {
            return origin == "*" || origin.starts_with("http://") || origin.starts_with("https://")
                       ? std::string()
                       : "an origin (http://host:port or https://host) or *, not " + origin;
        });
    app.add_option("--max-batch", max_batch, "sequences generating together")
        ->check(whole_number(1, 1024))
        ->capture_default_str();
    app.add_option("--max-queue", max_queue, "requests that may wait beyond a full batch; more are answered 429")
        ->check(whole_number(0, 4096))
        ->capture_default_str();
    app.add_option("--max-prompt-tokens", max_prompt_tokens,
                   "prompt tokens read in one step (at least one request's): fewer let running replies go on "
                   "sooner between long prompts")
        ->check(whole_number(1, 1 << 20))
        ->capture_default_str();
    app.add_option("--kv-memory", kv_memory_mib,
                   "MiB of KV cache all running sequences may hold together; beyond it requests wait or the newest "
                   "is preempted (0: no limit)")
        ->check(whole_number(0, 1 << 24))
        ->capture_default_str();
    app.add_option("--max-body", max_body, "largest request body in bytes; larger ones are answered 413")
        ->check(whole_number(1, 1ll << 30))
        ->capture_default_str();
    app.add_option("-n,--max-tokens", max_tokens, "tokens a reply may have when the request sets no max_tokens")
        ->check(whole_number(1, 1 << 20))
        ->capture_default_str();
    std::vector<std::string> format_names{"auto", "chat"};
    for (const PromptFormat f : all_prompt_formats())
        format_names.emplace_back(prompt_format_name(f));
    app.add_option("--format", format,
                   "prompt format of chat requests: auto (the file's chat template; without one, llama-2-chat when "
                   "the file or model name says chat or instruct, else raw: no chat requests), chat, or a format by "
                   "name")
        ->check(CLI::IsMember(format_names))
        ->capture_default_str();
    app.add_flag("-v,--verbose", verbose, "debug logging on stderr");
    SamplingOptions sampling;
    sampling.add_to(app);
    // PyramidInfer with the paper's knobs by default, which bench/server_load.py compares the
    // policies at (the chat programs start from the recall preset: --preset recall, or a
    // request's "pyramid": {"preset": "recall"}); --policy full keeps caches whole.
    CompressionOptions compression("pyramid");
    compression.add_to(app);
    DeviceOption device(KvPrecision::F16);
    device.add_to(app);

    StopSignals stop_signals;
    if (const auto status = parse_command_line(app, argc, argv, "pyramid-server"))
        return *status;
    init_logging({verbose, true, "pyramid-server"});

    server::ApiSettings settings;
    try {
        settings.compression = compression.resolve();
        settings.sampling = sampling.params();
        if (model_path.empty())
            model_path = find_default_model().string();
    } catch (const Error& e) {
        fmt::print(stderr, "pyramid-server: {}\n", e.what());
        return 2;
    }
    std::shared_ptr<Model> model;
    try {
        model = Model::open(model_path, device.options());
        settings.prompt.format = choose_format(format, *model);
        settings.compression.validate_for(model->config().n_layers);
    } catch (const std::exception& e) {
        fmt::print(stderr, "pyramid-server: {}\n", e.what());
        return 3;
    }
    const BackendInfo backend = model->backend().info();
    fmt::print(stderr, "[model] {} ({} layers, context {}) on {}: {}; prompt format {}\n", model_path,
               model->config().n_layers, model->config().context_length, backend.name, backend.device,
               prompt_format_name(settings.prompt.format));

    settings.api_key = api_key;
    settings.cors_origin = cors_origin;
    settings.max_body_bytes = max_body;
    settings.model_id = std::filesystem::path(model_path).stem().string();
    settings.model_bytes = model_storage_bytes(model_path);
    settings.created = static_cast<int64_t>(std::time(nullptr));
    settings.n_layers = model->config().n_layers;
    settings.prompt.context_length = model->config().context_length;
    settings.prompt.default_max_tokens = max_tokens;

    // A client that closed its connection makes a write fail with EPIPE, not kill the server.
    signal(SIGPIPE, SIG_IGN);
    server::ServingOptions serving;
    serving.batch.max_batch = max_batch;
    serving.batch.max_prompt_tokens = max_prompt_tokens;
    serving.batch.kv_byte_limit = static_cast<size_t>(kv_memory_mib) << 20;
    serving.max_queue = max_queue;
    std::unique_ptr<server::ApiServer> api;
    try {
        api = std::make_unique<server::ApiServer>(model->backend(), model->tokenizer(), settings, serving,
                                                  server::ListenAddress{host, port});
    } catch (const Error& e) {
        fmt::print(stderr, "pyramid-server: {}\n", e.what());
        return 3;
    }
    if (api_key.empty() && host != "127.0.0.1" && host != "::1" && host != "localhost")
        fmt::print(stderr, "[notice] listening on {} without --api-key: whoever reaches this machine can use the model\n",
                   host);
    fmt::print("listening on http://{}:{}\n", host.find(':') != std::string::npos ? "[" + host + "]" : host,
               api->port());
    std::fflush(stdout);
    {
        const StopSignals::Handling stopping = stop_signals.handle([&api](int) { api->stop(); });
        api->wait();
    }
    api.reset();
    fmt::print(stderr, "pyramid-server: stopped\n");
    return 0;
}
