#pragma once
// Constrained decoding to JSON: a sequence may draw only tokens after which its reply can
// still be a value of a schema (json_schema_prefix.h), and it ends once the value is whole.
// JSON mode (OpenAI's response_format {"type": "json_object"}) is the schema of any object
// (JsonSchema::any_object()); structured outputs ({"type": "json_schema"}) give theirs.
// Tokens without text (control tokens, the end of a turn) are refused until then: a reply
// ends at the value's last byte, or at max_tokens unfinished.
//
// Cost: each drawn token walks the vocabulary in byte order as a trie from the reply's state,
// so tokens that share a beginning share its steps, and every token under a refused
// beginning is refused at once. Inside a string, the tokens a string takes as they are
// (most of the vocabulary) are allowed without a step while their characters fit.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "generate/json_schema.h"
#include "generate/json_schema_prefix.h"
#include "tokenizer/tokenizer.h"

namespace pyramid {

// A vocabulary as constrained decoding reads it: made once, shared by every sequence.
struct JsonVocabulary {
    // `token_bytes[id]`: Tokenizer::token_bytes(id).
    explicit JsonVocabulary(std::vector<std::string> token_bytes);
    // Every token of `tokenizer` (Tokenizer::token_bytes).
    static std::shared_ptr<const JsonVocabulary> of(const Tokenizer& tokenizer);

    // Token ids sorted by their bytes, each with the length of the beginning it shares with
    // the one before: a trie, walked in order. The bytes are kept in that order too, one after
    // another (token k's from offsets[k] to offsets[k + 1]), so that the walk reads memory in
    // order: looking each token up by id missed the cache once a token (70% of a mask's time
    // inside a string with a pattern, where most of the vocabulary is stepped).
    struct ByteOrder {
        std::vector<int32_t> ids;
        std::vector<uint16_t> shared;
        std::string bytes;
        std::vector<uint32_t> offsets;

        std::string_view token(size_t k) const { return std::string_view(bytes).substr(offsets[k], offsets[k + 1] - offsets[k]); }
    };

    std::vector<std::string> token_bytes;
    std::vector<bool> string_text;       // a string takes the token as it is (string_room())
    std::vector<uint32_t> string_chars;  // the characters it adds to a string then
    ByteOrder every;                // the tokens with bytes
    ByteOrder not_string_text;      // those of them string_text leaves out
};

class JsonConstraint {
public:
    // Ids of a logits row past the vocabulary are never drawn.
    JsonConstraint(std::shared_ptr<const JsonVocabulary> vocabulary, std::shared_ptr<const JsonSchema> schema);

    // Sets the logits of the tokens that may not come next to -inf.
    void mask(std::span<float> logits);
    // The drawn token; false (nothing changes) when its bytes leave no value possible,
    // which a token mask() allowed never does.
    bool accept(int32_t token);
    bool complete() const { return prefix_.complete(); }

private:
    std::shared_ptr<const JsonVocabulary> vocabulary_;
    JsonSchemaPrefix prefix_;
    std::vector<JsonSchemaPrefix> levels_;  // mask(): the state after each byte of a token
    std::vector<uint8_t> allowed_;
};

} // namespace pyramid
