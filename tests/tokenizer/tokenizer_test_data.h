#pragma once
// Readers for the shared tokenizer test files, and a small hand-made vocabulary for tests
// that must not depend on them.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <QString>

#include "tokenizer/vocab.h"

namespace pyramid::test {

inline std::string read_text_file(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot read " + path.string());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// llama.cpp's vocab test inputs: each input is followed by "\n__ggml_vocab_test__\n".
inline std::vector<std::string> split_vocab_test_inputs(std::string_view text)
{
    constexpr std::string_view separator = "\n__ggml_vocab_test__\n";
    std::vector<std::string> inputs;
    size_t begin = 0;
    for (size_t end; (end = text.find(separator, begin)) != std::string_view::npos; begin = end + separator.size())
        inputs.emplace_back(text.substr(begin, end - begin));
    return inputs;
}

// One line of space-separated ids per input (an empty line for an empty input).
inline std::vector<std::vector<int32_t>> parse_id_lines(const std::string& text)
{
    std::vector<std::vector<int32_t>> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        std::istringstream ids(line);
        std::vector<int32_t>& row = lines.emplace_back();
        for (int32_t id; ids >> id;)
            row.push_back(id);
    }
    return lines;
}

// The first `count` lines of a text file, each without its newline.
inline std::vector<std::string> first_lines(const std::filesystem::path& path, size_t count)
{
    std::ifstream in(path, std::ios::binary);
    std::vector<std::string> lines;
    for (std::string line; lines.size() < count && std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

// A tiny LLaMA-style vocabulary: <unk> <s> </s>, the 256 byte pieces, and the pieces BPE
// needs to merge "▁hello" step by step.
inline EmbeddedVocab tiny_vocab()
{
    EmbeddedVocab v;
    v.model = "llama";
    auto add = [&](std::string piece, float score, int32_t type) {
        v.tokens.push_back(std::move(piece));
        v.scores.push_back(score);
        v.token_types.push_back(type);
    };
    add("<unk>", 0.0f, 2);
    add("<s>", 0.0f, 3);
    add("</s>", 0.0f, 3);
    const char* hex = "0123456789ABCDEF";
    for (int b = 0; b < 256; ++b)
        add(std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">", 0.0f, 6);
    float score = 0.0f;
    for (const char* piece : {"\xE2\x96\x81", "h", "e", "l", "o", "\xE2\x96\x81h", "ll", "\xE2\x96\x81he",
                              "llo", "\xE2\x96\x81hello"})
        add(piece, score -= 1.0f, 1);
    return v;
}

// A byte-level BPE vocabulary (tokenizer.ggml.model "gpt2") made here, with GPT-2's byte table.
// GPT-2's spelling of byte b (printable Latin-1 as itself, the rest from U+0100 on).
inline std::string spelled(unsigned char b)
{
    static const std::vector<std::string> table = [] {
        std::vector<std::string> t(256);
        char32_t next = 256;
        for (int i = 0; i < 256; ++i) {
            const bool printable = (i >= '!' && i <= '~') || (i >= 0xA1 && i <= 0xAC) || (i >= 0xAE);
            const char32_t cp = printable ? static_cast<char32_t>(i) : next++;
            t[static_cast<size_t>(i)] = QString::fromUcs4(&cp, 1).toStdString();
        }
        return t;
    }();
    return table[b];
}

// Ids: 0 <|endoftext|> (control), 1 <|im_start|> (control), 2..257 the 256 bytes, then the
// merges' results in merge order, then "{{" from one last merge (a vocabulary has merges),
// then `more_controls` as control tokens.
inline EmbeddedVocab small_vocab(std::vector<std::pair<std::string, std::string>> merges, std::string pre = "gpt2",
                                 const std::vector<std::string>& more_controls = {})
{
    EmbeddedVocab v;
    v.model = "gpt2";
    v.pre = std::move(pre);
    v.tokens = {"<|endoftext|>", "<|im_start|>"};
    v.token_types = {3, 3};
    for (int b = 0; b < 256; ++b) {
        v.tokens.push_back(spelled(static_cast<unsigned char>(b)));
        v.token_types.push_back(1);
    }
    merges.emplace_back("{", "{");
    for (const auto& [l, r] : merges) {
        v.merges.push_back(l + " " + r);
        v.tokens.push_back(l + r);
        v.token_types.push_back(1);
    }
    for (const std::string& control : more_controls) {
        v.tokens.push_back(control);
        v.token_types.push_back(3);
    }
    v.bos_id = 0;
    v.eos_id = 0;
    v.add_bos = false;
    return v;
}

} // namespace pyramid::test
