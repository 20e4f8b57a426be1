#include "generate/json_constraint.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "util/error.h"
#include "util/utf8.h"

namespace pyramid {
namespace {

JsonVocabulary::ByteOrder byte_order(const std::vector<std::string>& bytes, const std::vector<int32_t>& ids)
{
    JsonVocabulary::ByteOrder order;
    order.ids = ids;
    std::sort(order.ids.begin(), order.ids.end(), [&](int32_t a, int32_t b) {
        return bytes[static_cast<size_t>(a)] < bytes[static_cast<size_t>(b)];
    });
    order.shared.reserve(order.ids.size());
    order.offsets.reserve(order.ids.size() + 1);
    order.offsets.push_back(0);
    for (const int32_t id : order.ids) {
        order.bytes += bytes[static_cast<size_t>(id)];
        order.offsets.push_back(static_cast<uint32_t>(order.bytes.size()));
    }
    for (size_t i = 0; i < order.ids.size(); ++i) {
        size_t n = 0;
        if (i > 0) {
            const std::string& a = bytes[static_cast<size_t>(order.ids[i - 1])];
            const std::string& b = bytes[static_cast<size_t>(order.ids[i])];
            n = static_cast<size_t>(std::mismatch(a.begin(), a.begin() + static_cast<ptrdiff_t>(std::min(a.size(), b.size())),
                                                  b.begin()).first - a.begin());
        }
        order.shared.push_back(static_cast<uint16_t>(std::min<size_t>(n, std::numeric_limits<uint16_t>::max())));
    }
    return order;
}

} // namespace

JsonVocabulary::JsonVocabulary(std::vector<std::string> bytes) : token_bytes(std::move(bytes))
{
    JsonSchemaPrefix in_string(JsonSchema::any_object());
    in_string.feed("{\"");
    string_text.reserve(token_bytes.size());
    std::vector<int32_t> with_bytes, others;
    for (size_t id = 0; id < token_bytes.size(); ++id) {
        const std::string& t = token_bytes[id];
        // Without a quote it cannot leave the string (and come back into another).
        JsonSchemaPrefix after = in_string;
        const bool text = !t.empty() && t.find_first_of("\"\\") == std::string::npos && after.feed(t) &&
                          after.string_room();
        string_text.push_back(text);
        string_chars.push_back(static_cast<uint32_t>(utf8_code_points(t)));
        if (t.empty())
            continue;
        with_bytes.push_back(static_cast<int32_t>(id));
        if (!text)
            others.push_back(static_cast<int32_t>(id));
    }
    every = byte_order(token_bytes, with_bytes);
    not_string_text = byte_order(token_bytes, others);
}

std::shared_ptr<const JsonVocabulary> JsonVocabulary::of(const Tokenizer& tokenizer)
{
    std::vector<std::string> bytes;
    bytes.reserve(static_cast<size_t>(tokenizer.vocab_size()));
    for (int32_t id = 0; id < tokenizer.vocab_size(); ++id)
        bytes.push_back(tokenizer.token_bytes(id));
    return std::make_shared<const JsonVocabulary>(std::move(bytes));
}

JsonConstraint::JsonConstraint(std::shared_ptr<const JsonVocabulary> vocabulary, std::shared_ptr<const JsonSchema> schema)
    : vocabulary_(std::move(vocabulary)), prefix_(std::move(schema))
{
    if (!vocabulary_)
        throw Error("constrained decoding needs the vocabulary");
}

void JsonConstraint::mask(std::span<float> logits)
{
    const JsonVocabulary& v = *vocabulary_;
    allowed_.assign(v.token_bytes.size(), 0);
    const std::optional<uint32_t> room = prefix_.string_room();
    if (room)
        for (size_t id = 0; id < v.token_bytes.size(); ++id)
            allowed_[id] = v.string_text[id] && v.string_chars[id] <= *room;
    const JsonVocabulary::ByteOrder& order = room ? v.not_string_text : v.every;

    if (levels_.empty())
        levels_.push_back(prefix_);
    else
        levels_[0] = prefix_;
    // levels_[d]: the state after the first d bytes of the last token stepped, valid for
    // d <= valid; a token sharing at least `refused` bytes with the one before shares a
    // beginning already refused.
    size_t valid = 0;
    size_t refused = std::numeric_limits<size_t>::max();
    for (size_t k = 0; k < order.ids.size(); ++k) {
        const size_t shared = order.shared[k];
        valid = std::min(valid, shared);
        if (refused <= shared)
            continue;
        refused = std::numeric_limits<size_t>::max();
        const std::string_view t = order.token(k);
        size_t d = valid;
        for (; d < t.size(); ++d) {
            if (levels_.size() <= d + 1)
                levels_.push_back(prefix_);
            if (!levels_[d].step_into(t[d], levels_[d + 1])) {
                refused = d + 1;
                break;
            }
        }
        valid = d;
        if (d == t.size())
            allowed_[static_cast<size_t>(order.ids[k])] = 1;
    }
    for (size_t id = 0; id < logits.size(); ++id)
        if (id >= allowed_.size() || !allowed_[id])
            logits[id] = -std::numeric_limits<float>::infinity();
}

bool JsonConstraint::accept(int32_t token)
{
    const std::vector<std::string>& bytes = vocabulary_->token_bytes;
    if (token < 0 || static_cast<size_t>(token) >= bytes.size())
        return false;
    const std::string& t = bytes[static_cast<size_t>(token)];
    JsonSchemaPrefix next = prefix_;
    if (t.empty() || !next.feed(t))
        return false;
    prefix_ = std::move(next);
    return true;
}

} // namespace pyramid
