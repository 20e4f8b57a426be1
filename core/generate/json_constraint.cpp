#include "generate/json_constraint.h"

#include <limits>

#include "util/error.h"

namespace pyramid {

JsonVocabulary::JsonVocabulary(std::vector<std::string> bytes) : token_bytes(std::move(bytes))
{
    JsonPrefix in_string;
    in_string.feed("{\"");
    string_text.reserve(token_bytes.size());
    for (const std::string& t : token_bytes) {
        // Without a quote it cannot leave the string (and come back into another).
        JsonPrefix after = in_string;
        string_text.push_back(!t.empty() && t.find_first_of("\"\\") == std::string::npos && after.feed(t) &&
                              after.in_string_text());
    }
}

std::shared_ptr<const JsonVocabulary> JsonVocabulary::of(const Tokenizer& tokenizer)
{
    std::vector<std::string> bytes;
    bytes.reserve(static_cast<size_t>(tokenizer.vocab_size()));
    for (int32_t id = 0; id < tokenizer.vocab_size(); ++id)
        bytes.push_back(tokenizer.token_bytes(id));
    return std::make_shared<const JsonVocabulary>(std::move(bytes));
}

JsonConstraint::JsonConstraint(std::shared_ptr<const JsonVocabulary> vocabulary) : vocabulary_(std::move(vocabulary))
{
    if (!vocabulary_)
        throw Error("JSON mode needs the vocabulary");
}

void JsonConstraint::mask(std::span<float> logits) const
{
    const std::vector<std::string>& bytes = vocabulary_->token_bytes;
    const bool in_string_text = prefix_.in_string_text();
    for (size_t id = 0; id < logits.size(); ++id) {
        if (id < bytes.size() && in_string_text && vocabulary_->string_text[id])
            continue;
        if (id >= bytes.size() || bytes[id].empty() || !prefix_.accepts(bytes[id]))
            logits[id] = -std::numeric_limits<float>::infinity();
    }
}

bool JsonConstraint::accept(int32_t token)
{
    const std::vector<std::string>& bytes = vocabulary_->token_bytes;
    if (token < 0 || static_cast<size_t>(token) >= bytes.size() || bytes[static_cast<size_t>(token)].empty() ||
        !prefix_.accepts(bytes[static_cast<size_t>(token)]))
        return false;
    prefix_.feed(bytes[static_cast<size_t>(token)]);
    return true;
}

} // namespace pyramid
