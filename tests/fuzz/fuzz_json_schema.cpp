// A JSON schema from a request (response_format, Ollama's format, --json-schema), then a reply
// read against it: the input is the schema's text, a NUL byte, and the reply's bytes. The
// schema must be refused with pyramid::Error or read; the reply read byte by byte in bounded
// time and memory however the schema nests and repeats itself, never into a dead end (what was
// taken is whole or some byte goes on); and the constraint's mask over a small vocabulary must
// allow exactly the tokens the reader accepts, at the reply's first bytes.
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "generate/json_constraint.h"
#include "generate/json_schema.h"
#include "generate/json_schema_prefix.h"
#include "util/error.h"
#include "util/json_input.h"

namespace {

// Every byte, and pieces as a tokenizer has them (beginnings shared, quotes inside).
std::shared_ptr<const pyramid::JsonVocabulary> vocabulary()
{
    std::vector<std::string> tokens;
    for (int b = 0; b < 256; ++b)
        tokens.emplace_back(1, static_cast<char>(b));
    for (const char* t : {"{\"", "\":", "\": \"", "\",", "\"}", "},", "}]", "[{", "\n  ", "\n\n", " \"", "true", "null",
                          "fal", "12", "-0.", "e+", "\\u00", "\\uD83D", "\xC3\xA9", "\xE2\x82", "abc", "\"a\"", ""})
        tokens.emplace_back(t);
    return std::make_shared<const pyramid::JsonVocabulary>(std::move(tokens));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const bool quiet = [] {
        spdlog::set_level(spdlog::level::off);
        return true;
    }();
    (void)quiet;
    static const auto tokens = vocabulary();
    const char* text = reinterpret_cast<const char*>(data);
    const auto* nul = static_cast<const char*>(std::memchr(text, 0, size));
    const std::string schema_text(text, nul ? static_cast<size_t>(nul - text) : size);
    const std::string reply = nul ? std::string(nul + 1, text + size) : std::string();

    std::shared_ptr<const pyramid::JsonSchema> schema;
    try {
        pyramid::parse_json_document(schema_text, "schema");  // the limits a request is read with
        schema = pyramid::JsonSchema::compile(nlohmann::ordered_json::parse(schema_text));
    } catch (const pyramid::Error&) {
        return 0;
    }
    pyramid::JsonSchemaPrefix prefix(schema);
    pyramid::JsonConstraint constraint(tokens, schema);
    std::vector<float> logits(tokens->token_bytes.size());
    for (size_t i = 0; i < reply.size(); ++i) {
        if (i < 16) {
            std::fill(logits.begin(), logits.end(), 0.0f);
            constraint.mask(logits);
            for (size_t id = 0; id < logits.size(); ++id) {
                const std::string& t = tokens->token_bytes[id];
                const bool allowed = !t.empty() && prefix.accepts(t);
                if (allowed != (logits[id] == 0.0f))
                    __builtin_trap();  // the trie walk and trying the token disagree
            }
        }
        const bool taken = prefix.feed(reply[i]);
        if (taken != constraint.accept(static_cast<uint8_t>(reply[i])) || taken == false)
            break;
        if (prefix.complete() != constraint.complete())
            __builtin_trap();
    }
    // Whatever was taken can be finished: some byte goes on, or the value is whole.
    bool goes_on = prefix.complete();
    for (int b = 0; b < 256 && !goes_on; ++b)
        goes_on = prefix.accepts(std::string(1, static_cast<char>(b)));
    if (!goes_on)
        __builtin_trap();
    return 0;
}
