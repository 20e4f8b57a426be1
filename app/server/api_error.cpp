#include "api_error.h"

#include "util/error.h"
#include "util/json_input.h"

namespace pyramid::server {
namespace {

std::string type_of(int status)
{
    switch (status) {
    case 400:
    case 404:
    case 405:
    case 411:
    case 413: return "invalid_request_error";
    case 401: return "authentication_error";
    case 429: return "rate_limit_error";
    default: return "server_error";
    }
}

nlohmann::json shape(int status, const std::string& message, const std::string& param)
{
    return {{"error",
             {{"message", message},
              {"type", type_of(status)},
              {"param", param.empty() ? nlohmann::json(nullptr) : nlohmann::json(param)},
              {"code", nullptr}}}};
}

} // namespace

ApiError::ApiError(int status, std::string message, std::string param)
    : std::runtime_error(std::move(message)), status_(status), param_(std::move(param))
{
}

std::string ApiError::type() const { return type_of(status_); }

nlohmann::json ApiError::body() const { return shape(status_, what(), param_); }

nlohmann::json error_body(int status, const std::string& message) { return shape(status, message, {}); }

nlohmann::json request_object(std::string_view text)
{
    nlohmann::json body;
    try {
        body = parse_json_document(text, "the request body");
    } catch (const Error& e) {
        throw ApiError(400, e.what());
    }
    if (!body.is_object())
        throw ApiError(400, "the request body must be a JSON object, not " + json_excerpt(body));
    return body;
}

} // namespace pyramid::server
