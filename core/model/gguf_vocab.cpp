#include "model/gguf_vocab.h"

#include <string>

#include "util/error.h"

namespace pyramid {
namespace {

[[noreturn]] void fail(const GgufFile& file, const std::string& what)
{
    throw Error(file.path().string() + ": " + what);
}

// An optional per-token array: its length must match the token count and its elements must be
// numbers.
const GgufArray* per_token_array(const GgufFile& file, const char* key, size_t n_tokens)
{
    const GgufArray* a = file.get_array(key);
    if (!a)
        return nullptr;
    if (a->size() != n_tokens)
        fail(file, std::string(key) + " has " + std::to_string(a->size()) + " entries for " +
                       std::to_string(n_tokens) + " tokens");
    const GgufType t = a->element_type();
    if (t == GgufType::String || t == GgufType::Array || t == GgufType::Bool)
        fail(file, std::string(key) + " should hold numbers, found an array of " + std::string(gguf_type_name(t)));
    return a;
}

// The strings of a required array; `why` says why it is required when it is missing.
std::vector<std::string> string_array(const GgufFile& file, const char* key, const std::string& why)
{
    const GgufArray* a = file.get_array(key);
    if (!a)
        fail(file, why + " but " + key + " is missing");
    if (a->element_type() != GgufType::String)
        fail(file, std::string(key) + " should hold strings, found an array of " +
                       std::string(gguf_type_name(a->element_type())));
    std::vector<std::string> out;
    out.reserve(a->size());
    for (size_t i = 0; i < a->size(); ++i)
        out.emplace_back(*a->at(i).as_string());
    return out;
}

int32_t token_id(const GgufFile& file, const char* key, int32_t fallback, size_t n_tokens)
{
    const auto v = file.get_int(key);
    if (!v)
        return fallback;
    if (*v == -1 || *v == 0xFFFFFFFFll)  // converters write "no such token" either way
        return -1;
    if (*v < 0 || static_cast<uint64_t>(*v) >= n_tokens)
        fail(file, std::string(key) + " " + std::to_string(*v) + " is outside the vocabulary of " +
                       std::to_string(n_tokens) + " tokens");
    return static_cast<int32_t>(*v);
}

} // namespace

std::optional<EmbeddedVocab> read_gguf_vocab(const GgufFile& file)
{
    const auto model = file.get_string("tokenizer.ggml.model");
    if (!model)
        return std::nullopt;

    EmbeddedVocab vocab;
    vocab.model = std::string(*model);
    vocab.tokens = string_array(file, "tokenizer.ggml.tokens", "tokenizer.ggml.model is set");
    const size_t n = vocab.tokens.size();
    if (n == 0 || n > static_cast<size_t>(INT32_MAX))
        fail(file, "tokenizer.ggml.tokens has " + std::to_string(n) + " entries");

    if (const GgufArray* scores = per_token_array(file, "tokenizer.ggml.scores", n)) {
        vocab.scores.reserve(n);
        for (size_t i = 0; i < n; ++i)
            vocab.scores.push_back(static_cast<float>(*scores->at(i).as_float()));
    }
    if (const GgufArray* types = per_token_array(file, "tokenizer.ggml.token_type", n)) {
        vocab.token_types.reserve(n);
        for (size_t i = 0; i < n; ++i) {
            const auto t = types->at(i).as_int();
            if (!t || *t < INT32_MIN || *t > INT32_MAX)
                fail(file, "tokenizer.ggml.token_type[" + std::to_string(i) + "] is not a valid token type");
            vocab.token_types.push_back(static_cast<int32_t>(*t));
        }
    }

    if (vocab.model == "gpt2") {
        vocab.merges = string_array(file, "tokenizer.ggml.merges", "tokenizer.ggml.model is \"gpt2\" (byte-level BPE)");
        vocab.pre = std::string(file.get_string("tokenizer.ggml.pre").value_or(""));
    }

    vocab.bos_id = token_id(file, "tokenizer.ggml.bos_token_id", vocab.bos_id, n);
    vocab.eos_id = token_id(file, "tokenizer.ggml.eos_token_id", vocab.eos_id, n);
    vocab.unk_id = token_id(file, "tokenizer.ggml.unknown_token_id", vocab.unk_id, n);
    vocab.pad_id = token_id(file, "tokenizer.ggml.padding_token_id", vocab.pad_id, n);
    vocab.add_bos = file.get_bool("tokenizer.ggml.add_bos_token").value_or(vocab.add_bos);
    vocab.add_eos = file.get_bool("tokenizer.ggml.add_eos_token").value_or(vocab.add_eos);
    vocab.add_space_prefix = file.get_bool("tokenizer.ggml.add_space_prefix").value_or(vocab.add_space_prefix);
    vocab.remove_extra_whitespaces =
        file.get_bool("tokenizer.ggml.remove_extra_whitespaces").value_or(vocab.remove_extra_whitespaces);
    return vocab;
}

} // namespace pyramid
