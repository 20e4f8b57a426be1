#pragma once
// JSON mode (OpenAI's response_format {"type": "json_object"}): a sequence may draw only tokens
// after which its reply can still be one JSON object (json_prefix.h), and it ends once the
// object is whole. Tokens without text (control tokens, the end of a turn) are refused until
// then: a reply in JSON mode ends at its closing brace, or at max_tokens unfinished.
//
// Cost: each drawn token tries every token of the vocabulary against the reply's state (a
// copy of a small fixed-size state and a step per byte), 0.5 ms for SmolLM2's 49,152 tokens
// between values on a Zen 4 core; inside a string, where most tokens are plain text that a
// string takes as it is, only the others are tried.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "generate/json_prefix.h"
#include "tokenizer/tokenizer.h"

namespace pyramid {

// A vocabulary as JSON mode reads it: made once, shared by every sequence.
struct JsonVocabulary {
    // `token_bytes[id]`: Tokenizer::token_bytes(id).
    explicit JsonVocabulary(std::vector<std::string> token_bytes);
    // Every token of `tokenizer` (Tokenizer::token_bytes).
    static std::shared_ptr<const JsonVocabulary> of(const Tokenizer& tokenizer);

    std::vector<std::string> token_bytes;
    std::vector<bool> string_text;  // a string takes the token as it is (JsonPrefix::in_string_text)
};

class JsonConstraint {
public:
    // Ids of a logits row past the vocabulary are never drawn.
    explicit JsonConstraint(std::shared_ptr<const JsonVocabulary> vocabulary);

    // Sets the logits of the tokens that may not come next to -inf.
    void mask(std::span<float> logits) const;
    // The drawn token; false (nothing changes) when its bytes leave no object possible,
    // which a token mask() allowed never does.
    bool accept(int32_t token);
    bool complete() const { return prefix_.complete(); }

private:
    std::shared_ptr<const JsonVocabulary> vocabulary_;
    JsonPrefix prefix_;
};

} // namespace pyramid
