#include "tokenize_api.h"

#include "api_error.h"
#include "util/json_input.h"
#include "util/utf8.h"

namespace pyramid::server {
namespace {

using nlohmann::json;

bool read_flag(const json& body, const char* name)
{
    const auto it = body.find(name);
    if (it == body.end() || it->is_null())
        return false;
    if (!it->is_boolean())
        throw ApiError(400, std::string("'") + name + "' must be true or false, not " + json_excerpt(*it), name);
    return it->get<bool>();
}

} // namespace

json tokenize_body(std::string_view request, const Tokenizer& tokenizer)
{
    const json body = request_object(request);
    const auto content = body.find("content");
    if (content == body.end() || !content->is_string())
        throw ApiError(400, "'content' must be a string, not " + json_excerpt(content == body.end() ? json() : *content),
                       "content");
    std::vector<int32_t> ids;
    if (read_flag(body, "add_special") && tokenizer.add_bos() && tokenizer.bos_id() >= 0)
        ids.push_back(tokenizer.bos_id());
    for (const int32_t id : tokenizer.encode(content->get<std::string>()))
        ids.push_back(id);
    if (!read_flag(body, "with_pieces"))
        return {{"tokens", ids}};
    json tokens = json::array();
    for (const int32_t id : ids)
        tokens.push_back({{"id", id}, {"piece", repair_utf8(tokenizer.token_bytes(id))}});
    return {{"tokens", std::move(tokens)}};
}

json detokenize_body(std::string_view request, const Tokenizer& tokenizer)
{
    const json body = request_object(request);
    const auto tokens = body.find("tokens");
    if (tokens == body.end() || !tokens->is_array())
        throw ApiError(400, "'tokens' must be an array of token ids, not " +
                                json_excerpt(tokens == body.end() ? json() : *tokens), "tokens");
    std::vector<int32_t> ids;
    for (size_t i = 0; i < tokens->size(); ++i) {
        const json& id = (*tokens)[i];
        if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= tokenizer.vocab_size())
            throw ApiError(400, "'tokens[" + std::to_string(i) + "]' must be a token id from 0 to " +
                                    std::to_string(tokenizer.vocab_size() - 1) + ", not " + json_excerpt(id),
                           "tokens[" + std::to_string(i) + "]");
        ids.push_back(static_cast<int32_t>(id.get<int64_t>()));
    }
    return {{"content", tokenizer.decode(ids)}};
}

} // namespace pyramid::server
