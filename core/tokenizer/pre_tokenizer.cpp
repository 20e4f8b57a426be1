#include "tokenizer/pre_tokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <array>
#include <span>

#include "util/error.h"
#include "util/json_input.h"

namespace pyramid {
namespace {

// The expressions of each family, as llama.cpp's llm_tokenizer_bpe lists them (those are
// the Hugging Face tokenizers' own, with case-insensitive groups spelled out).
constexpr std::string_view kGpt2 =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))";
constexpr std::string_view kLlama3 =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kQwen2 =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

struct Family {
    std::span<const std::string_view> names;
    std::span<const std::string_view> expressions;
    bool ignore_merges = false;
};

constexpr std::array kDefaultNames = {std::string_view("default")};
constexpr std::array kDefaultExpressions = {std::string_view(R"([\p{P}\$\+<=>\^~\|]+)"), kGpt2,
                                            std::string_view(R"(\p{N}+)"), std::string_view("[0-9][0-9][0-9]")};
constexpr std::array kGpt2Names = {std::string_view("gpt-2"), std::string_view("gpt2"), std::string_view("mpt"),
                                   std::string_view("olmo"), std::string_view("jais"), std::string_view("phi-2")};
constexpr std::array kGpt2Expressions = {kGpt2};
// StarCoder's family (SmolLM among it): every digit on its own, then GPT-2's expression.
constexpr std::array kStarcoderNames = {std::string_view("smollm"), std::string_view("starcoder"),
                                        std::string_view("refact"), std::string_view("command-r"),
                                        std::string_view("codeshell"), std::string_view("exaone"),
                                        std::string_view("minerva-7b")};
constexpr std::array kStarcoderExpressions = {std::string_view(R"(\p{N})"), kGpt2};
constexpr std::array kLlama3Names = {std::string_view("llama-bpe"), std::string_view("llama3"),
                                     std::string_view("llama-v3"), std::string_view("falcon3"),
                                     std::string_view("dbrx"), std::string_view("smaug-bpe")};
constexpr std::array kLlama3Expressions = {kLlama3};
constexpr std::array kQwen2Names = {std::string_view("qwen2"), std::string_view("deepseek-r1-qwen"),
                                    std::string_view("stablelm2"), std::string_view("megrez")};
constexpr std::array kQwen2Expressions = {kQwen2};

constexpr std::array kFamilies = {
    Family{kDefaultNames, kDefaultExpressions},
    Family{kGpt2Names, kGpt2Expressions},
    Family{kStarcoderNames, kStarcoderExpressions},
    Family{kLlama3Names, kLlama3Expressions, true},
    Family{kQwen2Names, kQwen2Expressions},
};

struct CodeDeleter {
    void operator()(pcre2_code* code) const { pcre2_code_free(code); }
};

pcre2_code* compile(std::string_view pattern)
{
    int error = 0;
    PCRE2_SIZE offset = 0;
    // MATCH_INVALID_UTF: text is user input and may hold bytes that are not UTF-8; they
    // match nothing instead of failing the whole match.
    pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                     PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &error, &offset, nullptr);
    if (!code) {
        PCRE2_UCHAR message[256];
        pcre2_get_error_message(error, message, sizeof message);
        throw Error("pre-tokenizer expression does not compile at offset " + std::to_string(offset) + ": " +
                    reinterpret_cast<const char*>(message));
    }
    pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // an interpreter match is only slower
    return code;
}

}  // namespace

struct PreTokenizer::Expressions {
    std::vector<std::unique_ptr<pcre2_code, CodeDeleter>> codes;
};

PreTokenizer::PreTokenizer(std::string_view name) : name_(name.empty() ? "default" : name)
{
    for (const Family& family : kFamilies) {
        for (const std::string_view n : family.names) {
            if (n != name_)
                continue;
            expressions_ = std::make_unique<Expressions>();
            for (const std::string_view e : family.expressions)
                expressions_->codes.emplace_back(compile(e));
            ignore_merges_ = family.ignore_merges;
            return;
        }
    }
    std::string known;
    for (const std::string& n : known_names())
        known += (known.empty() ? "" : ", ") + n;
    throw Error("tokenizer.ggml.pre " + json_excerpt(name_) +
                " names a pre-tokenizer this program does not know (known: " + known + ")");
}

PreTokenizer::PreTokenizer(PreTokenizer&&) noexcept = default;
PreTokenizer& PreTokenizer::operator=(PreTokenizer&&) noexcept = default;
PreTokenizer::~PreTokenizer() = default;

std::vector<std::string> PreTokenizer::known_names()
{
    std::vector<std::string> names;
    for (const Family& family : kFamilies)
        for (const std::string_view n : family.names)
            names.emplace_back(n);
    return names;
}

std::vector<std::string_view> PreTokenizer::split(std::string_view text) const
{
    std::vector<std::string_view> pieces;
    if (text.empty())
        return pieces;
    pieces.push_back(text);
    std::vector<std::string_view> next;
    for (const auto& code : expressions_->codes) {
        std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> match(
            pcre2_match_data_create_from_pattern(code.get(), nullptr), &pcre2_match_data_free);
        next.clear();
        for (const std::string_view piece : pieces) {
            const auto subject = reinterpret_cast<PCRE2_SPTR>(piece.data());
            size_t done = 0;   // bytes of `piece` already handed out
            size_t start = 0;  // where the next search starts
            while (start < piece.size()) {
                const int rc = pcre2_match(code.get(), subject, piece.size(), start, 0, match.get(), nullptr);
                if (rc == PCRE2_ERROR_NOMATCH)
                    break;
                if (rc < 0)
                    throw Error("the pre-tokenizer failed on the text (PCRE2 error " + std::to_string(rc) + ")");
                const PCRE2_SIZE* range = pcre2_get_ovector_pointer(match.get());
                if (range[1] == range[0]) {  // an empty match cuts nothing: look on from the next byte
                    start = range[0] + 1;
                    continue;
                }
                if (range[0] > done)
                    next.push_back(piece.substr(done, range[0] - done));
                next.push_back(piece.substr(range[0], range[1] - range[0]));
                done = start = range[1];
            }
            if (done < piece.size())
                next.push_back(piece.substr(done));
        }
        pieces.swap(next);
    }
    return pieces;
}

} // namespace pyramid
