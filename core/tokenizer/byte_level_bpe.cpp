#include "tokenizer/byte_level_bpe.h"

#include <array>
#include <queue>

#include "util/error.h"
#include "util/utf8.h"

namespace pyramid {
namespace {

// GPT-2's bytes_to_unicode(): the printable Latin-1 bytes stand for themselves, the 68
// others take the code points from U+0100 on, in byte order.
struct ByteTable {
    std::array<std::string, 256> spelling;           // byte -> UTF-8 of its character
    std::unordered_map<char32_t, uint8_t> byte_of;   // character -> byte

    ByteTable()
    {
        char32_t next = 256;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            const char32_t cp = printable ? static_cast<char32_t>(b) : next++;
            append_utf8(spelling[static_cast<size_t>(b)], cp);
            byte_of[cp] = static_cast<uint8_t>(b);
        }
    }
};

const ByteTable& byte_table()
{
    static const ByteTable table;  // immutable after construction
    return table;
}

char32_t decode_char(std::string_view text, size_t n)
{
    const auto b = [&](size_t i) { return static_cast<char32_t>(static_cast<uint8_t>(text[i])); };
    switch (n) {
    case 1: return b(0);
    case 2: return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3: return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    default: return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    }
}

// A symbol of the piece being merged: a byte range of the mapped text, linked to its
// neighbours. A symbol merged into its left neighbour has length 0.
struct Symbol {
    size_t start = 0;
    size_t length = 0;
    int prev = -1;
    int next = -1;
};

// A candidate merge of two neighbours, valid while both still have the lengths it saw.
struct Candidate {
    int rank;
    int left;
    int right;
    size_t left_length;
    size_t right_length;
    // Lowest rank first, then leftmost: the order llama.cpp and Hugging Face merge in.
    bool operator<(const Candidate& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
};

}  // namespace

ByteLevelBpe::ByteLevelBpe(const EmbeddedVocab& vocab) : tokens_(vocab.tokens), pre_(vocab.pre)
{
    const size_t n = tokens_.size();
    if (n == 0)
        throw Error("tokenizer.ggml.tokens is empty");
    if (!vocab.token_types.empty() && vocab.token_types.size() != n)
        throw Error("tokenizer.ggml.token_type has " + std::to_string(vocab.token_types.size()) +
                    " entries, expected " + std::to_string(n) + " (one per token)");
    types_ = vocab.token_types.empty() ? std::vector<int32_t>(n, static_cast<int32_t>(TokenType::Normal))
                                       : vocab.token_types;
    ids_.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        if (tokens_[i].empty())
            throw Error("tokenizer.ggml.tokens[" + std::to_string(i) + "] is empty");
        if (!ids_.emplace(tokens_[i], static_cast<int32_t>(i)).second)
            throw Error("tokenizer.ggml.tokens[" + std::to_string(i) + "] repeats token " +
                        std::to_string(ids_[tokens_[i]]) + " (a byte-level BPE vocabulary spells each token once)");
    }
    if (vocab.merges.empty())
        throw Error("this byte-level BPE vocabulary (tokenizer.ggml.model \"gpt2\") has no tokenizer.ggml.merges; "
                    "the file was converted without its merges and cannot be tokenized");
    ranks_.reserve(vocab.merges.size());
    for (size_t r = 0; r < vocab.merges.size(); ++r) {
        const std::string& m = vocab.merges[r];
        const size_t space = m.find(' ', 1);
        if (space == std::string::npos || space + 1 >= m.size())
            throw Error("tokenizer.ggml.merges[" + std::to_string(r) + "] is not two symbols separated by a space");
        ranks_.emplace(m, static_cast<int>(r));  // a repeated merge keeps its first (best) rank
    }
}

std::string ByteLevelBpe::description() const { return "byte-level BPE (pre-tokenizer " + pre_.name() + ")"; }

int32_t ByteLevelBpe::token_id(std::string_view text) const
{
    const auto it = ids_.find(std::string(text));
    return it == ids_.end() ? -1 : it->second;
}

int ByteLevelBpe::merge_rank(std::string_view left, std::string_view right) const
{
    std::string key;
    key.reserve(left.size() + 1 + right.size());
    key.append(left).append(1, ' ').append(right);
    const auto it = ranks_.find(key);
    return it == ranks_.end() ? -1 : it->second;
}

int32_t ByteLevelBpe::special_token_id(std::string_view text) const
{
    const int32_t id = token_id(text);
    if (id < 0)
        return -1;
    const auto type = static_cast<TokenType>(types_[static_cast<size_t>(id)]);
    return type == TokenType::Control || type == TokenType::UserDefined ? id : -1;
}

std::vector<int32_t> ByteLevelBpe::encode(std::string_view text) const
{
    const ByteTable& table = byte_table();
    std::vector<int32_t> out;
    std::string mapped;
    for (const std::string_view piece : pre_.split(text)) {
        mapped.clear();
        for (const char c : piece)
            mapped += table.spelling[static_cast<uint8_t>(c)];
        if (pre_.ignore_merges()) {
            if (const int32_t id = token_id(mapped); id >= 0) {
                out.push_back(id);
                continue;
            }
        }
        encode_piece(mapped, out);
    }
    return out;
}

void ByteLevelBpe::encode_piece(std::string_view mapped, std::vector<int32_t>& out) const
{
    // The mapped text is valid UTF-8 by construction: one symbol per character to start.
    std::vector<Symbol> symbols;
    for (size_t at = 0; at < mapped.size();) {
        const size_t n = utf8_char_length(mapped.substr(at));
        Symbol s;
        s.start = at;
        s.length = n;
        s.prev = static_cast<int>(symbols.size()) - 1;
        symbols.push_back(s);
        at += n;
    }
    for (size_t i = 0; i + 1 < symbols.size(); ++i)
        symbols[i].next = static_cast<int>(i + 1);

    const auto text = [&](const Symbol& s) { return mapped.substr(s.start, s.length); };
    std::priority_queue<Candidate> queue;
    const auto consider = [&](int left, int right) {
        if (left < 0 || right < 0)
            return;
        const Symbol& l = symbols[static_cast<size_t>(left)];
        const Symbol& r = symbols[static_cast<size_t>(right)];
        if (const int rank = merge_rank(text(l), text(r)); rank >= 0)
            queue.push({rank, left, right, l.length, r.length});
    };
    for (size_t i = 0; i + 1 < symbols.size(); ++i)
        consider(static_cast<int>(i), static_cast<int>(i + 1));

    while (!queue.empty()) {
        const Candidate c = queue.top();
        queue.pop();
        Symbol& l = symbols[static_cast<size_t>(c.left)];
        Symbol& r = symbols[static_cast<size_t>(c.right)];
        if (l.length != c.left_length || r.length != c.right_length || l.next != c.right)
            continue;  // one side changed since this pair was seen
        l.length += r.length;
        r.length = 0;
        l.next = r.next;
        if (r.next >= 0)
            symbols[static_cast<size_t>(r.next)].prev = c.left;
        consider(l.prev, c.left);
        consider(c.left, l.next);
    }

    for (const Symbol& s : symbols) {
        if (s.length == 0)
            continue;
        if (const int32_t id = token_id(text(s)); id >= 0) {
            out.push_back(id);
            continue;
        }
        // Not in the vocabulary: its bytes one by one, where they are tokens (llama.cpp's rule).
        for (const char c : text(s))
            if (const int32_t id = token_id(std::string_view(&c, 1)); id >= 0)
                out.push_back(id);
    }
}

std::string ByteLevelBpe::decode(std::span<const int32_t> ids) const
{
    std::string bytes;
    for (const int32_t id : ids)
        append_bytes(id, bytes);
    return repair_utf8(bytes);
}

std::string ByteLevelBpe::token_bytes(int32_t id) const
{
    std::string bytes;
    append_bytes(id, bytes);
    return bytes;
}

void ByteLevelBpe::append_bytes(int32_t id, std::string& bytes) const
{
    const std::string& t = tokens_[static_cast<size_t>(id)];
    switch (static_cast<TokenType>(types_[static_cast<size_t>(id)])) {
    case TokenType::Control:
    case TokenType::Unknown:
    case TokenType::Unused:
        return;
    case TokenType::UserDefined:
        bytes += t;
        return;
    default:
        break;
    }
    const ByteTable& table = byte_table();
    std::string_view rest = t;
    while (!rest.empty()) {
        const size_t n = utf8_char_length(rest);
        if (n == 0) {  // a malformed vocabulary entry: keep the byte, repair_utf8 marks it in decode()
            bytes += rest[0];
            rest.remove_prefix(1);
            continue;
        }
        const auto it = table.byte_of.find(decode_char(rest, n));
        if (it != table.byte_of.end())
            bytes += static_cast<char>(it->second);
        else
            bytes.append(rest.substr(0, n));  // a character outside the table stands for itself
        rest.remove_prefix(n);
    }
}

} // namespace pyramid
