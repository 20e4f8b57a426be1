#include "text_windows.h"

#include <algorithm>

#include "util/error.h"

namespace pyramid {
namespace {

bool is_blank(std::string_view line)
{
    return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

// BOS where the model starts its texts with one, else nothing.
std::vector<int32_t> text_head(const Tokenizer& tokenizer)
{
    return tokenizer.add_bos() && tokenizer.bos_id() >= 0 ? std::vector<int32_t>{tokenizer.bos_id()}
                                                         : std::vector<int32_t>{};
}

std::vector<std::vector<int32_t>> token_windows(const std::string& text, const Tokenizer& tokenizer, int need,
                                                int count)
{
    const std::vector<int32_t> tokens = tokenizer.encode(text);
    std::vector<std::vector<int32_t>> out;
    for (size_t start = 0; static_cast<int>(out.size()) < count && start + need <= tokens.size(); start += need) {
        std::vector<int32_t> window = text_head(tokenizer);
        window.insert(window.end(), tokens.begin() + static_cast<std::ptrdiff_t>(start),
                      tokens.begin() + static_cast<std::ptrdiff_t>(start + need));
        out.push_back(std::move(window));
    }
    return out;
}

std::vector<std::vector<int32_t>> paragraph_windows(const std::string& text, const Tokenizer& tokenizer, int need,
                                                    int count, const std::string& prefix)
{
    const std::vector<size_t> starts = paragraph_starts(text);
    std::vector<std::vector<int32_t>> out;
    size_t p = 0;  // index into starts of the next candidate
    while (static_cast<int>(out.size()) < count && p < starts.size()) {
        if (text.compare(starts[p], prefix.size(), prefix) != 0) {
            ++p;
            continue;
        }
        // Tokenize whole paragraphs from this start until the window is full. No piece spans a
        // line break (newlines are byte pieces), so these are the tokens of the longer text.
        size_t end = p + 1;
        std::vector<int32_t> tokens;
        for (;; ++end) {
            const size_t stop = end < starts.size() ? starts[end] : text.size();
            tokens = tokenizer.encode(std::string_view(text).substr(starts[p], stop - starts[p]));
            if (static_cast<int>(tokens.size()) >= need || end >= starts.size())
                break;
        }
        if (static_cast<int>(tokens.size()) < need)
            break;
        std::vector<int32_t> window = text_head(tokenizer);
        window.insert(window.end(), tokens.begin(), tokens.begin() + need);
        out.push_back(std::move(window));
        p = end;  // the window ended inside paragraph end - 1
    }
    return out;
}

std::vector<std::vector<int32_t>> llama_cpp_chunks(const std::string& text, const Tokenizer& tokenizer, int n_ctx,
                                                   int count)
{
    std::vector<int32_t> tokens = text_head(tokenizer);
    const std::vector<int32_t> body = tokenizer.encode(text);
    tokens.insert(tokens.end(), body.begin(), body.end());
    std::vector<std::vector<int32_t>> out;
    const auto n = static_cast<size_t>(n_ctx);
    for (size_t start = 0; static_cast<int>(out.size()) < count && start + n <= tokens.size(); start += n) {
        std::vector<int32_t> chunk(tokens.begin() + static_cast<std::ptrdiff_t>(start),
                                   tokens.begin() + static_cast<std::ptrdiff_t>(start + n));
        if (!text_head(tokenizer).empty())
            chunk.front() = tokenizer.bos_id();
        out.push_back(std::move(chunk));
    }
    return out;
}

} // namespace

std::vector<size_t> paragraph_starts(const std::string& text)
{
    std::vector<size_t> out;
    bool after_blank = true;
    for (size_t pos = 0; pos < text.size();) {
        const size_t eol = std::min(text.find('\n', pos), text.size());
        const std::string_view line = std::string_view(text).substr(pos, eol - pos);
        const bool blank = is_blank(line);
        if (!blank && after_blank)
            out.push_back(pos);
        after_blank = blank;
        pos = eol + 1;
    }
    return out;
}

std::vector<std::vector<int32_t>> make_windows(const std::string& text, const Tokenizer& tokenizer,
                                               const WindowOptions& options)
{
    if (options.prefill < 1 || options.continuation < 1 || options.count < 1)
        throw Error("prefill, continuation and window count must be positive (got " +
                    std::to_string(options.prefill) + ", " + std::to_string(options.continuation) + ", " +
                    std::to_string(options.count) + ")");
    const int length = options.prefill + options.continuation;
    const int need = length - static_cast<int>(text_head(tokenizer).size());  // text tokens per window
    std::vector<std::vector<int32_t>> windows;
    switch (options.align) {
    case WindowAlign::Tokens: windows = token_windows(text, tokenizer, need, options.count); break;
    case WindowAlign::Paragraphs:
        windows = paragraph_windows(text, tokenizer, need, options.count, options.paragraph_prefix);
        break;
    case WindowAlign::LlamaCpp: windows = llama_cpp_chunks(text, tokenizer, length, options.count); break;
    }
    if (static_cast<int>(windows.size()) < options.count)
        throw Error("the text holds only " + std::to_string(windows.size()) + " windows of " +
                    std::to_string(length) + " tokens (" + to_string(options.align) + "-aligned" +
                    (options.paragraph_prefix.empty() ? "" : ", starting with \"" + options.paragraph_prefix + "\"") +
                    "), but " + std::to_string(options.count) + " were asked for");
    return windows;
}

std::string to_string(WindowAlign align)
{
    switch (align) {
    case WindowAlign::Tokens: return "tokens";
    case WindowAlign::Paragraphs: return "paragraphs";
    case WindowAlign::LlamaCpp: return "llama.cpp";
    }
    return "tokens";
}

WindowAlign parse_window_align(const std::string& text)
{
    if (text == "tokens")
        return WindowAlign::Tokens;
    if (text == "paragraphs")
        return WindowAlign::Paragraphs;
    if (text == "llama.cpp")
        return WindowAlign::LlamaCpp;
    throw Error("window alignment must be tokens, paragraphs or llama.cpp, not \"" + text + "\"");
}

} // namespace pyramid
