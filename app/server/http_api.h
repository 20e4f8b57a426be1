#pragma once
// The HTTP face of the server: OpenAI's routes on a cpp-httplib server.
//
//   POST /v1/chat/completions   POST /v1/completions   GET /v1/models (and /v1/models/ID)
//   POST /tokenize   POST /detokenize (llama.cpp's, tokenize_api.h)   GET /health
//   GET /metrics (Prometheus text)
//   Ollama's: POST /api/chat   POST /api/generate (ollama_request.h)   GET /api/tags
//   POST /api/show   GET /api/version; their errors are Ollama's {"error": "..."}
//
// Every answer that is not a success carries a JSON error object (api_error.h): 400 for a
// body that is not JSON, a field of the wrong type or range, a prompt that does not fit the
// context; 401 without the API key when one is set (Authorization: Bearer KEY, on every route);
// 404 for an unknown route; 411 for a chunked body and 413 for one over max_body_bytes (both
// refused before they are read); 429 with Retry-After when the serving loop has no room. One
// request per connection: the connection closes after each answer.
//
// Why cpp-httplib (Debian's libcpp-httplib-dev 0.11) and not Qt HttpServer 6.4: httplib's
// chunked content provider sends each server-sent event as it is written, from the thread of
// that connection, and a write to a client that went away fails, which is how a disconnect is
// noticed and its sequence cancelled (reply_writer.h). Qt HttpServer 6.4 answers a request
// with one whole response (chunked responses came in Qt 6.8), so tokens could not be streamed,
// and it tells a route nothing of the connection closing.
#include <httplib.h>

#include "api_settings.h"
#include "server_metrics.h"
#include "serving_loop.h"

namespace pyramid::server {

// Installs the routes, the key check, the error bodies and the request counting on `server`.
// The tokenizer, loop and metrics must outlive the server.
void install_api(httplib::Server& server, const ApiSettings& settings, const Tokenizer& tokenizer, ServingLoop& loop,
                 ServerMetrics& metrics);

} // namespace pyramid::server
