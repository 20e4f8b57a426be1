#pragma once
// What the OpenAI-compatible routes answer with (http_api.h): the key asked for, the body limit,
// the model's name and shape, how prompts are made, and the defaults of fields a request leaves
// out.
#include <cstddef>
#include <cstdint>
#include <string>

#include "generate/sampling_params.h"
#include "kv/compression_config.h"
#include "request_prompt.h"

namespace pyramid::server {

struct ApiSettings {
    std::string api_key;         // "": none asked for
    // Cross-origin requests (CORS) allowed from this origin ("*": any; "": none, the default,
    // so a web page the user opens cannot drive the local model): browser-based clients need it.
    std::string cors_origin;
    size_t max_body_bytes = 1 << 20;
    std::string model_id;        // what /v1/models lists and replies name
    uint64_t model_bytes = 0;    // the model's file (or folder), for Ollama's /api/tags
    int64_t created = 0;         // the model's "created" (Unix seconds): when the server started
    int n_layers = 0;            // the model's, for a request's compression config
    PromptRules prompt;
    SamplingParams sampling;       // for fields a request leaves out
    CompressionConfig compression; // unless a request's "pyramid" field says otherwise
};

} // namespace pyramid::server
