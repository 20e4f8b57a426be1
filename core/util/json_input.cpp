#include "util/json_input.h"

#include <set>
#include <vector>

#include "util/error.h"

namespace pyramid {

nlohmann::json parse_json_document(std::string_view text, const std::string& what, int max_depth)
{
    using nlohmann::json;
    std::vector<std::set<std::string>> keys;  // one set per object being read, innermost last
    const json::parser_callback_t check = [&](int depth, json::parse_event_t event, json& parsed) {
        if (depth > max_depth)
            throw Error(what + ": JSON nested deeper than " + std::to_string(max_depth) + " levels");
        switch (event) {
        case json::parse_event_t::object_start: keys.emplace_back(); break;
        case json::parse_event_t::object_end: keys.pop_back(); break;
        case json::parse_event_t::key:
            if (!keys.back().insert(parsed.get<std::string>()).second)
                throw Error(what + ": the key " + json_excerpt(parsed) + " appears twice in one object");
            break;
        default: break;
        }
        return true;
    };
    json document = json::parse(text.begin(), text.end(), check, /*allow_exceptions=*/false);
    if (document.is_discarded())
        throw Error(what + ": not valid JSON");
    return document;
}

std::string json_excerpt(const nlohmann::json& value, size_t max_chars)
{
    // ensure_ascii escapes everything outside printable ASCII; depth is bounded by the parser.
    std::string text = value.dump(-1, ' ', /*ensure_ascii=*/true, nlohmann::json::error_handler_t::replace);
    if (text.size() > max_chars)
        text = text.substr(0, max_chars) + "...";
    return text;
}

} // namespace pyramid
