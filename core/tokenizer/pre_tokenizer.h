#pragma once
// The pre-tokenizer of a byte-level BPE vocabulary: it cuts text into the pieces that BPE
// merges never cross (words with their leading space, runs of digits, punctuation, spaces).
//
// GGUF files name it in tokenizer.ggml.pre; each name stands for the list of regular
// expressions llama.cpp (and the Hugging Face tokenizer the file was converted from) applies.
// The expressions run one after another: each cuts every piece the previous one left into
// its matches and the text between them, both kept, and sees only its piece (a lookahead
// never looks past the piece's end). Unicode classes (\p{L}, \p{N}, \s) come from PCRE2 in
// UTF and UCP mode, so they follow the Unicode character database; bytes that are not valid
// UTF-8 match no class and stay in the text between matches.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pyramid {

class PreTokenizer {
public:
    // Throws pyramid::Error naming `name` and the names known when it is not one of them.
    // "" (a file without tokenizer.ggml.pre) is llama.cpp's "default".
    explicit PreTokenizer(std::string_view name);
    PreTokenizer(PreTokenizer&&) noexcept;
    PreTokenizer& operator=(PreTokenizer&&) noexcept;
    ~PreTokenizer();

    // The pieces of `text` in order; their concatenation is `text`. Views into `text`.
    std::vector<std::string_view> split(std::string_view text) const;

    // The name as given ("smollm", "llama-bpe", ...; "default" for "").
    const std::string& name() const { return name_; }
    // LLaMA-3's tokenizer takes a whole piece that is itself a token before merging (its
    // tokenizer.json sets ignore_merges).
    bool ignore_merges() const { return ignore_merges_; }

    // Every name this pre-tokenizer understands, for messages and documentation.
    static std::vector<std::string> known_names();

private:
    struct Expressions;
    std::string name_;
    bool ignore_merges_ = false;
    std::unique_ptr<Expressions> expressions_;
};

} // namespace pyramid
