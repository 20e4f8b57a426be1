#include "http_api.h"

#include <atomic>
#include <ctime>
#include <memory>
#include <optional>
#include <utility>

#include "api_error.h"
#include "completion_request.h"
#include "ollama_json.h"
#include "ollama_request.h"
#include "reply_writer.h"
#include "tokenize_api.h"
#include "util/error.h"
#include "util/json_input.h"

namespace pyramid::server {
namespace {

void send_json(httplib::Response& res, int status, const nlohmann::json& body)
{
    res.status = status;
    res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "application/json");
}

// The message of an error the library answers by itself.
std::string library_error(const httplib::Request& req, int status, size_t max_body_bytes)
{
    switch (status) {
    case 404:
        return "no route " + req.method + " " + json_excerpt(req.path) +
               ": this server answers POST /v1/chat/completions, POST /v1/completions, GET /v1/models, "
               "POST /tokenize, POST /detokenize, Ollama's POST /api/chat, POST /api/generate, GET /api/tags, "
               "POST /api/show and GET /api/version, GET /health and GET /metrics";
    case 413:
        return "the request body is larger than the " + std::to_string(max_body_bytes) +
               " bytes this server accepts (--max-body)";
    default: return "the request could not be read (HTTP " + std::to_string(status) + ")";
    }
}

class Api {
public:
    Api(const ApiSettings& settings, const Tokenizer& tokenizer, ServingLoop& loop)
        : settings_(settings), tokenizer_(tokenizer), loop_(loop), json_vocabulary_(JsonVocabulary::of(tokenizer))
    {
    }

    void complete(const httplib::Request& req, httplib::Response& res, Endpoint endpoint)
    {
        reply(parse_completion_request(req.body, endpoint, settings_.sampling), ReplyShape::OpenAI, res);
    }

    void ollama(const httplib::Request& req, httplib::Response& res, OllamaRoute route)
    {
        OllamaRequest asked = parse_ollama_request(req.body, route, settings_.sampling);
        const ReplyShape shape = route == OllamaRoute::Chat ? ReplyShape::OllamaChat : ReplyShape::OllamaGenerate;
        if (asked.load_only)
            send_json(res, 200, ollama_loaded({Endpoint::Chat, {}, 0, settings_.model_id, shape}));
        else
            reply(std::move(asked.request), shape, res);
    }

private:
    // Queues the request and streams its reply in `shape`. Ollama's replies without num_predict
    // run until the context is full (its default), and one asking for more stops there.
    void reply(CompletionRequest request, ReplyShape shape, httplib::Response& res)
    {
        const Endpoint endpoint = request.endpoint;
        std::optional<int> until;
        if (shape != ReplyShape::OpenAI)
            until = std::exchange(request.max_tokens, std::nullopt);
        for (const auto& [id, bias] : request.sampling.logit_bias)
            if (id >= tokenizer_.vocab_size())
                throw ApiError(400, "'logit_bias' names token " + std::to_string(id) + ", outside the vocabulary of " +
                                        std::to_string(tokenizer_.vocab_size()), "logit_bias");
        RequestPrompt prompt = request_prompt(request, tokenizer_, settings_.prompt);
        if (shape != ReplyShape::OpenAI) {
            const int room = settings_.prompt.context_length - static_cast<int>(prompt.tokens.size());
            prompt.max_tokens = std::min(until.value_or(room), room);
        }
        ServingJob job{prompt.tokens, prompt.max_tokens, request.sampling,
                       request.compression.value_or(settings_.compression), request.stop, request.logprobs,
                       endpoint == Endpoint::Text};
        if (request.json)
            job.json.emplace(json_vocabulary_, request.json);
        try {
            job.compression.validate_for(settings_.n_layers);
        } catch (const Error& e) {
            throw ApiError(400, std::string("'pyramid': ") + e.what(), "pyramid");
        }
        std::shared_ptr<ReplyChannel> channel = loop_.submit(std::move(job));
        if (!channel)
            throw ApiError(429, "the server is busy: its batch and queue are full; retry later");
        ReplyIdentity identity{endpoint,
                               (endpoint == Endpoint::Chat ? "chatcmpl-" : "cmpl-") + std::to_string(++next_id_),
                               static_cast<int64_t>(std::time(nullptr)), settings_.model_id, shape};
        auto writer = std::make_shared<ReplyWriter>(std::move(identity), request.stream, request.include_usage,
                                                    request.logprobs.has_value(), channel);
        const char* type = !request.stream                  ? "application/json"
                           : shape == ReplyShape::OpenAI ? "text/event-stream"
                                                         : "application/x-ndjson";
        res.set_chunked_content_provider(
            type,
            [writer](size_t, httplib::DataSink& sink) {
                const ReplyWriter::Progress progress =
                    writer->pump([&](const std::string& bytes) { return sink.write(bytes.data(), bytes.size()); });
                if (progress == ReplyWriter::Progress::Done)
                    sink.done();
                return progress != ReplyWriter::Progress::Failed;
            },
            // Also when the library gives up on the connection before the provider runs.
            [channel](bool success) {
                if (!success)
                    channel->cancel();
            });
        if (request.stream)
            res.set_header("Cache-Control", "no-cache");
    }

    const ApiSettings& settings_;
    const Tokenizer& tokenizer_;
    ServingLoop& loop_;
    const std::shared_ptr<const JsonVocabulary> json_vocabulary_;  // for JSON mode
    std::atomic<long long> next_id_{0};
};

} // namespace

void install_api(httplib::Server& server, const ApiSettings& settings, const Tokenizer& tokenizer, ServingLoop& loop,
                 ServerMetrics& metrics)
{
    auto api = std::make_shared<Api>(settings, tokenizer, loop);
    const auto guarded = [](auto handler) {
        return [handler](const httplib::Request& req, httplib::Response& res) {
            try {
                handler(req, res);
            } catch (const ApiError& e) {
                send_json(res, e.status(), e.body());
                if (e.status() == 429)
                    res.set_header("Retry-After", "1");
            } catch (const std::exception& e) {  // a bug: said as one, never a dropped connection
                send_json(res, 500, error_body(500, std::string("the server failed: ") + e.what()));
            }
        };
    };
    server.Post("/v1/chat/completions", guarded([api](const auto& req, auto& res) { api->complete(req, res, Endpoint::Chat); }));
    server.Post("/v1/completions", guarded([api](const auto& req, auto& res) { api->complete(req, res, Endpoint::Text); }));
    server.Get("/v1/models", [&settings](const httplib::Request&, httplib::Response& res) {
        send_json(res, 200, models_body(settings.model_id, settings.created));
    });
    server.Get(R"(/v1/models/(.+))", [&settings](const httplib::Request& req, httplib::Response& res) {
        if (req.matches[1] == settings.model_id)
            send_json(res, 200, models_body(settings.model_id, settings.created)["data"][0]);
        else
            send_json(res, 404, ApiError(404, "no model " + json_excerpt(std::string(req.matches[1])) +
                                                  ": this server serves " + json_excerpt(settings.model_id), "model")
                                    .body());
    });
    server.Post("/tokenize", guarded([&tokenizer](const auto& req, auto& res) {
        send_json(res, 200, tokenize_body(req.body, tokenizer));
    }));
    server.Post("/detokenize", guarded([&tokenizer](const auto& req, auto& res) {
        send_json(res, 200, detokenize_body(req.body, tokenizer));
    }));
    // Ollama's routes answer errors in Ollama's shape, {"error": "..."}.
    const auto ollama_guarded = [](auto handler) {
        return [handler](const httplib::Request& req, httplib::Response& res) {
            try {
                handler(req, res);
            } catch (const ApiError& e) {
                send_json(res, e.status(), ollama_error(e.what()));
            } catch (const std::exception& e) {
                send_json(res, 500, ollama_error(std::string("the server failed: ") + e.what()));
            }
        };
    };
    server.Post("/api/chat", ollama_guarded([api](const auto& req, auto& res) { api->ollama(req, res, OllamaRoute::Chat); }));
    server.Post("/api/generate",
                ollama_guarded([api](const auto& req, auto& res) { api->ollama(req, res, OllamaRoute::Generate); }));
    server.Get("/api/tags", [&settings](const httplib::Request&, httplib::Response& res) {
        send_json(res, 200, ollama_tags(settings));
    });
    server.Post("/api/show", [&settings](const httplib::Request&, httplib::Response& res) {
        send_json(res, 200, ollama_show(settings));
    });
    server.Get("/api/version", [](const httplib::Request&, httplib::Response& res) {
        send_json(res, 200, {{"version", PYRAMIDCHAT_VERSION}});
    });
    server.Get("/health", [](const httplib::Request&, httplib::Response& res) { send_json(res, 200, {{"status", "ok"}}); });
    server.Get("/metrics", [&metrics](const httplib::Request&, httplib::Response& res) {
        res.set_content(metrics.prometheus_text(), "text/plain; version=0.0.4");
    });

    if (!settings.cors_origin.empty()) {
        // Every answer, errors included, may be read by a page of that origin; a browser's
        // preflight (OPTIONS, never with the key) is answered before the key is asked for.
        server.set_default_headers({{"Access-Control-Allow-Origin", settings.cors_origin}, {"Vary", "Origin"}});
        server.Options(R"(.*)", [](const httplib::Request&, httplib::Response& res) {
            res.status = 204;
            res.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
            res.set_header("Access-Control-Allow-Headers", "Authorization, Content-Type");
            res.set_header("Access-Control-Max-Age", "600");
        });
    }
    // Runs before the library reads a body: a request refused here leaves its body unread.
    server.set_pre_routing_handler([&settings](const httplib::Request& req, httplib::Response& res) {
        const auto refuse = [&](const ApiError& refusal) {
            send_json(res, refusal.status(), refusal.body());
            return httplib::Server::HandlerResponse::Handled;
        };
        // cpp-httplib 0.11 reads a chunked body whole, however large: --max-body binds only a
        // body with a Content-Length (which every HTTP client library sends for JSON).
        if (req.has_header("Transfer-Encoding"))
            return refuse(ApiError(411, "send the body with a Content-Length: this server does not read chunked "
                                        "request bodies"));
        if (settings.api_key.empty() || req.get_header_value("Authorization") == "Bearer " + settings.api_key ||
            (!settings.cors_origin.empty() && req.method == "OPTIONS"))
            return httplib::Server::HandlerResponse::Unhandled;
        res.set_header("WWW-Authenticate", "Bearer");
        return refuse(ApiError(401, req.has_header("Authorization")
                                        ? "the API key is not this server's"
                                        : "an API key is needed: send the header Authorization: Bearer KEY"));
    });
    server.set_error_handler([&settings](const httplib::Request& req, httplib::Response& res) {
        if (res.body.empty())  // ours carry their own
            send_json(res, res.status, error_body(res.status, library_error(req, res.status, settings.max_body_bytes)));
    });
    server.set_logger([&metrics](const httplib::Request& req, const httplib::Response& res) {
        metrics.count_request(req.path, res.status);
    });
    server.set_payload_max_length(settings.max_body_bytes);
    // One request per connection: a body left unread (refused above) would otherwise be read as
    // the next request on it, and cpp-httplib 0.11 does not close a connection on its own after
    // a refusal. A local client opening a connection per request loses little; streams last
    // as long as they need.
    server.set_keep_alive_max_count(1);
}

} // namespace pyramid::server
