#pragma once
// A request the server refuses, as OpenAI's API refuses it: an HTTP status and a JSON body
//
//   {"error": {"message": "...", "type": "invalid_request_error", "param": "max_tokens", "code": null}}
//
// so that OpenAI's client libraries raise their usual exceptions (BadRequestError for 400,
// AuthenticationError for 401, RateLimitError for 429) with the message as written here.
// Messages name the field at fault and what was expected, as the project's errors do.
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pyramid::server {

class ApiError : public std::runtime_error {
public:
    // `param`: the request field at fault, "" when none is.
    ApiError(int status, std::string message, std::string param = {});

    int status() const { return status_; }
    const std::string& param() const { return param_; }
    // "invalid_request_error" (400, 404, 405, 411, 413), "authentication_error" (401),
    // "rate_limit_error" (429), "server_error" (500 and the rest).
    std::string type() const;
    nlohmann::json body() const;

private:
    int status_;
    std::string param_;
};

// The body of an error the HTTP library answers by itself (404 for an unknown path, 413 for a
// body over the limit), in the same shape.
nlohmann::json error_body(int status, const std::string& message);

// A request body read as a JSON object; ApiError 400 with the parser's message (json_input.h's
// limits) or naming what came instead of an object.
nlohmann::json request_object(std::string_view body);

} // namespace pyramid::server
