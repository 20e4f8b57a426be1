#pragma once
// JSON that comes from outside (a model folder's config.json, a safetensors header, a
// compression config): parsed with a bound on nesting and with repeated keys refused, and
// quoted back in messages only as a short excerpt. nlohmann::json parses without recursion,
// but printing (dump) and comparing recurse, so a value nested 65,000 levels deep would blow
// the stack of whatever touches it later; such a document is refused while it is read.
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pyramid {

inline constexpr int kJsonMaxDepth = 64;  // Hugging Face configs nest 3-4 levels

// Throws pyramid::Error starting with `what` when `text` is not JSON, nests deeper than
// `max_depth` arrays and objects, or repeats a key within one object (which value a reader
// takes is a guess; the message names the key).
nlohmann::json parse_json_document(std::string_view text, const std::string& what, int max_depth = kJsonMaxDepth);

// `value` as JSON text for a message: at most `max_chars` characters (then "..."), control
// characters and non-ASCII escaped, so a hostile value cannot flood or garble a message.
std::string json_excerpt(const nlohmann::json& value, size_t max_chars = 60);

} // namespace pyramid
