// TextStreamer: the streamed pieces must add up to decode() of the whole sequence and never
// split a UTF-8 character, for real text (emoji, CJK, byte fallback) and random ids.
#include <QtTest>

#include <optional>
#include <random>
#include <stdexcept>

#include "shared_data.h"
#include "tokenizer/text_streamer.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer_test_data.h"
#include "util/error.h"

using namespace pyramid;

namespace {

// True when `text` is complete, well-formed UTF-8 (no partial character at either end).
bool is_valid_utf8(const std::string& text)
{
    size_t i = 0;
    while (i < text.size()) {
        const auto lead = static_cast<unsigned char>(text[i]);
        const size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
        if (length == 0 || i + length > text.size())
            return false;
        for (size_t k = 1; k < length; ++k)
            if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80)
                return false;
        i += length;
    }
    return true;
}

// Streams `ids`, checking every piece, and returns the concatenation (finish() included).
// `longest_window`, when given, receives the longest window the streamer re-decoded.
std::string stream_all(TextStreamer& streamer, const std::vector<int32_t>& ids, size_t* longest_window = nullptr)
{
    std::string text;
    for (const int32_t id : ids) {
        const std::string piece = streamer.put(id);
        if (longest_window)
            *longest_window = std::max(*longest_window, streamer.window_length());
        if (!is_valid_utf8(piece))
            throw std::runtime_error("streamer returned a partial UTF-8 character");
        text += piece;
    }
    const std::string rest = streamer.finish();
    if (!is_valid_utf8(rest))
        throw std::runtime_error("finish() returned a partial UTF-8 character");
    return text + rest;
}

int32_t byte_id(const Tokenizer& tok, unsigned byte)
{
    const char* hex = "0123456789ABCDEF";
    const std::string piece = std::string("<0x") + hex[byte >> 4] + hex[byte & 15] + ">";
    for (int32_t id = 0; id < tok.vocab_size(); ++id)
        if (tok.piece(id) == piece)
            return id;
    return -1;
}

}  // namespace

class TextStreamerTest : public QObject {
    Q_OBJECT

private:
    std::optional<Tokenizer> tok_;

private slots:
    void init()
    {
        PYRAMID_REQUIRE_SHARED(model, "models/tokenizer.model");
        if (!tok_)
            tok_ = Tokenizer::from_model_file(model);
    }

    void matchesDecodeOnText_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("plain") << "Hello world, how are you?";
        QTest::newRow("leading spaces") << "   indented\n\tand tabbed";
        QTest::newRow("emoji") << "Hi 👋🏽! 🦙🦙 llamas 🎉";
        QTest::newRow("cjk") << "你好，世界。日本語のテキストと한국어";
        QTest::newRow("mixed") << "Ünïcödé — “quotes” … ½ ∑ ∫ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀 ok";
        QTest::newRow("control text") << "<s> [INST] </s>";
        QTest::newRow("only emoji") << "😀";
    }

    void matchesDecodeOnText()
    {
        QFETCH(QString, text);
        const Tokenizer& tok = *tok_;
        const auto ids = tok.encode(text.toStdString());
        TextStreamer streamer(tok);
        QCOMPARE(stream_all(streamer, ids), tok.decode(ids));

        // The same after a BOS, and again on a reused streamer.
        std::vector<int32_t> with_bos = {tok.bos_id()};
        with_bos.insert(with_bos.end(), ids.begin(), ids.end());
        QCOMPARE(stream_all(streamer, with_bos), tok.decode(with_bos));
    }

    void matchesDecodeOnVocabTestInputs()
    {
        PYRAMID_REQUIRE_SHARED(inp, "data/ggml-vocab-llama-spm.gguf.inp");
        const Tokenizer& tok = *tok_;
        TextStreamer streamer(tok);
        for (const auto& text : test::split_vocab_test_inputs(test::read_text_file(inp))) {
            const auto ids = tok.encode(text);
            QCOMPARE(stream_all(streamer, ids), tok.decode(ids));
        }
    }

    void matchesDecodeOnRandomIds()
    {
        // Mostly byte-fallback pieces, so runs form valid, truncated and invalid UTF-8,
        // mixed with ordinary pieces and control tokens.
        const Tokenizer& tok = *tok_;
        std::mt19937 rng(20240601);
        std::uniform_int_distribution<int32_t> any_id(0, tok.vocab_size() - 1);
        std::uniform_int_distribution<unsigned> any_byte(0x80, 0xFF);
        std::uniform_int_distribution<int> kind(0, 9);
        std::uniform_int_distribution<int> length(1, 40);
        std::vector<int32_t> byte_ids(256);
        for (unsigned b = 0; b < 256; ++b)
            byte_ids[b] = byte_id(tok, b);
        int32_t space = 0;  // "▁" alone: decodes to nothing at the start
        while (tok.piece(space) != "\u2581")
            ++space;
        TextStreamer streamer(tok);
        for (int round = 0; round < 400; ++round) {
            std::vector<int32_t> ids;
            for (int n = length(rng); n > 0; --n) {
                const int k = kind(rng);
                ids.push_back(k < 4   ? byte_ids[any_byte(rng)]
                              : k < 5 ? byte_ids[any_byte(rng) - 0x80]
                              : k < 6 ? space
                              : k < 7 ? (n % 2 ? tok.eos_id() : 0)  // 0: <unk>
                                      : any_id(rng));
            }
            QCOMPARE(stream_all(streamer, ids), tok.decode(ids));
        }
    }

    // Characters that exist only as byte-fallback runs, alone or between spaces, decode to
    // U+FFFD or nothing token by token; the window must still restart after each of them,
    // or every token re-decodes the whole reply.
    void theWindowStaysShortOutsideTheVocabulary_data()
    {
        QTest::addColumn<QString>("unit");
        QTest::newRow("emoji") << "🦙";
        QTest::newRow("emoji and spaces") << "🎉 🎂 ";
        QTest::newRow("amharic") << "ሰላም ጓደኞች ";
    }

    void theWindowStaysShortOutsideTheVocabulary()
    {
        QFETCH(QString, unit);
        const Tokenizer& tok = *tok_;
        const auto ids = tok.encode(unit.repeated(500).toStdString());
        QVERIFY(ids.size() > 1000);
        TextStreamer streamer(tok);
        size_t longest = 0;
        QCOMPARE(stream_all(streamer, ids, &longest), tok.decode(ids));
        QVERIFY2(longest <= 5, std::to_string(longest).c_str());  // an anchor and one 4-byte character
    }

    void holdsIncompleteCharacter()
    {
        // "€" is E2 82 AC: nothing is shown until the third byte arrives.
        const Tokenizer& tok = *tok_;
        TextStreamer streamer(tok);
        QCOMPARE(streamer.put(byte_id(tok, 0xE2)), std::string());
        QCOMPARE(streamer.put(byte_id(tok, 0x82)), std::string());
        QCOMPARE(streamer.put(byte_id(tok, 0xAC)), std::string("€"));
        QCOMPARE(streamer.finish(), std::string());
    }

    void finishFlushesTruncatedCharacter()
    {
        const Tokenizer& tok = *tok_;
        TextStreamer streamer(tok);
        const std::vector<int32_t> ids = {tok.encode("ok")[0], byte_id(tok, 0xE2), byte_id(tok, 0x82)};
        std::string shown;
        for (const int32_t id : ids)
            shown += streamer.put(id);
        QCOMPARE(shown, std::string("ok"));
        QCOMPARE(shown + streamer.finish(), tok.decode(ids));
    }

    void dropsOnlyTheFirstLeadingSpace()
    {
        const Tokenizer& tok = *tok_;
        const auto ids = tok.encode("Hello world");
        QCOMPARE(ids.size(), size_t(2));
        TextStreamer streamer(tok);
        QCOMPARE(streamer.put(ids[0]), std::string("Hello"));
        QCOMPARE(streamer.put(ids[1]), std::string(" world"));
        QCOMPARE(streamer.finish(), std::string());
        // finish() started a new sequence: its first piece loses its space again.
        QCOMPARE(streamer.put(ids[1]), std::string("world"));
    }

    // A completion continues its prompt: what it streams is what decoding the prompt with it
    // adds, the first piece's space included ("Once upon a time," + " there"), also after finish().
    void continuedTextKeepsTheLeadingSpace()
    {
        PYRAMID_REQUIRE_SHARED(inp, "data/ggml-vocab-llama-spm.gguf.inp");
        const Tokenizer& tok = *tok_;
        const std::vector<int32_t> prompt = tok.encode("Once upon a time,");
        const std::string before = tok.decode(prompt);
        TextStreamer streamer(tok, true);
        auto texts = test::split_vocab_test_inputs(test::read_text_file(inp));
        texts.push_back(" there was");
        texts.push_back("\n😀 ok");
        for (const auto& text : texts) {
            const auto ids = tok.encode(text);
            std::vector<int32_t> whole = prompt;
            whole.insert(whole.end(), ids.begin(), ids.end());
            QCOMPARE(stream_all(streamer, ids), tok.decode(whole).substr(before.size()));
        }
        const auto there = tok.encode(" there");
        QCOMPARE(streamer.put(there[0]).front(), ' ');
    }

    void rejectsBadIds()
    {
        TextStreamer streamer(*tok_);
        QVERIFY_THROWS_EXCEPTION(Error, streamer.put(tok_->vocab_size()));
        QCOMPARE(streamer.put(tok_->encode("fine")[0]), std::string("fine"));
    }
};

QTEST_APPLESS_MAIN(TextStreamerTest)
#include "text_streamer_test.moc"
