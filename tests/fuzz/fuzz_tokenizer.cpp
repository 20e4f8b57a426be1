// Text from anywhere (what a user pastes into the chat, a prompt sent to the server) through
// each tokenizer named in PYRAMID_FUZZ_VOCABS (GGUF files, ':'-separated; scripts/fuzz.sh
// names LLaMA-2's SentencePiece vocabulary, stories260K's 512-piece one and the default
// model's byte-level BPE), else LLaMA-2's from the shared data. For every input:
// - encode never fails, and gives ids in range, none of them BOS, EOS or a token that ends a
//   turn (typed control tokens stay text: chat_format.h relies on it);
// - text that is valid UTF-8 decodes back to itself, when each of its characters does alone (a
//   vocabulary may lack a byte: SmolLM2's has no token for 0x04, 0x06, 0x13, 0x14, 0x16, 0x1d,
//   0xf1, 0xf2 and the bytes UTF-8 never uses, and drops them as llama.cpp does);
// - TextStreamer's pieces, token by token, add up to the whole decode.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <spdlog/spdlog.h>

#include "model/gguf_file.h"
#include "model/gguf_vocab.h"
#include "tokenizer/text_streamer.h"
#include "tokenizer/tokenizer.h"
#include "util/error.h"
#include "util/utf8.h"

namespace {

struct Checked {
    pyramid::Tokenizer tok;
    std::unordered_map<std::string, bool> survives_alone;  // by character, filled as met

    // Whether `text` (valid UTF-8) is made of characters that each decode back to themselves.
    bool spellable(std::string_view text)
    {
        for (size_t i = 0; i < text.size();) {
            const size_t length = pyramid::utf8_char_length(text.substr(i));
            const std::string c(text.substr(i, length));
            auto [it, added] = survives_alone.try_emplace(c, false);
            if (added)
                it->second = tok.decode(tok.encode(c)) == c;
            if (!it->second)
                return false;
            i += length;
        }
        return true;
    }
};

std::vector<Checked> load_tokenizers()
{
    spdlog::set_level(spdlog::level::off);
    const char* listed = std::getenv("PYRAMID_FUZZ_VOCABS");
    const std::string paths = listed ? listed : PYRAMID_SHARED_DIR "/models/ggml-vocab-llama-spm.gguf";
    std::vector<Checked> tokenizers;
    for (size_t start = 0; start <= paths.size();) {
        const size_t end = std::min(paths.find(':', start), paths.size());
        const std::string path = paths.substr(start, end - start);
        start = end + 1;
        if (path.empty())
            continue;
        // A vocabulary that cannot be read is the setup's fault, not the input's: stop loudly.
        const auto vocab = pyramid::read_gguf_vocab(pyramid::GgufFile::open(path));
        if (!vocab) {
            std::fprintf(stderr, "fuzz_tokenizer: %s holds no vocabulary\n", path.c_str());
            std::abort();
        }
        tokenizers.push_back({pyramid::Tokenizer::from_embedded_vocab(*vocab), {}});
    }
    if (tokenizers.empty()) {
        std::fprintf(stderr, "fuzz_tokenizer: no vocabulary named\n");
        std::abort();
    }
    return tokenizers;
}

// Bytes as C escapes, for the report.
std::string escaped(std::string_view bytes)
{
    std::string out;
    for (const unsigned char c : bytes) {
        char hex[8];
        std::snprintf(hex, sizeof hex, c >= 0x20 && c < 0x7f && c != '\\' ? "%c" : "\\x%02x", c);
        out += hex;
    }
    return out;
}

void check(bool holds, const pyramid::Tokenizer& tok, const char* what, std::string_view text, std::string_view got)
{
    if (!holds) {
        std::fprintf(stderr, "fuzz_tokenizer: %s (%s): \"%s\" gave \"%s\"\n", what, tok.description().c_str(),
                     escaped(text).c_str(), escaped(got).c_str());
        __builtin_trap();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static std::vector<Checked> tokenizers = load_tokenizers();
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const bool valid_utf8 = pyramid::repair_utf8(text) == text;
    for (Checked& checked : tokenizers) {
        const pyramid::Tokenizer& tok = checked.tok;
        const std::vector<int32_t> ids = tok.encode(text);
        for (const int32_t id : ids) {
            check(id >= 0 && id < tok.vocab_size(), tok, "an id out of range", text, std::to_string(id));
            check(id != tok.bos_id() && id != tok.eos_id() && !tok.is_end_of_generation(id), tok,
                  "text became a control token", text, tok.piece(id));
        }
        const std::string decoded = tok.decode(ids);
        check(!valid_utf8 || decoded == text || !checked.spellable(text), tok,
              "valid UTF-8 did not decode back to itself", text, decoded);
        pyramid::TextStreamer streamer(tok);
        std::string streamed;
        for (const int32_t id : ids)
            streamed += streamer.put(id);
        streamed += streamer.finish();
        check(streamed == decoded, tok, "the streamed pieces differ from the whole decode", decoded, streamed);
    }
    return 0;
}
