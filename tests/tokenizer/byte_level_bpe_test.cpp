// Byte-level BPE (tokenizer.ggml.model "gpt2"): the rules on a vocabulary made here (merge
// order, byte fallback, pre-tokenizer pieces, control tokens, decoding of split characters,
// bad vocabularies), then SmolLM2-135M-Instruct against every id sequence llama.cpp's
// llama-tokenize wrote into ../shared/data/smollm2-tokenizer-vectors.json.
#include <QtTest>

#include <fstream>

#include <nlohmann/json.hpp>

#include "model/gguf_file.h"
#include "model/gguf_vocab.h"
#include "shared_data.h"
#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/text_streamer.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer_test_data.h"
#include "util/error.h"

using namespace pyramid;

namespace {

using Ids = std::vector<int32_t>;
using test::small_vocab;
using test::spelled;

int32_t byte_id(unsigned char b) { return 2 + b; }

}  // namespace

class ByteLevelBpeTest : public QObject {
    Q_OBJECT

private slots:
    void mergesApplyLowestRankFirst()
    {
        // "ab" ranks before "bc": "abc" becomes ab + c, never a + bc.
        const Tokenizer tok = Tokenizer::from_embedded_vocab(small_vocab({{"a", "b"}, {"b", "c"}, {"ab", "c"}}));
        QCOMPARE(tok.encode("abc"), Ids{260});  // a b -> ab (258), ab c -> abc (260)
        QCOMPARE(tok.encode("bc"), Ids{259});
        // Equal ranks merge leftmost first: "aaa" with only "a a" gives aa + a.
        const Tokenizer twice = Tokenizer::from_embedded_vocab(small_vocab({{"a", "a"}}));
        QCOMPARE(twice.encode("aaa"), (Ids{258, byte_id('a')}));
        QCOMPARE(twice.encode("aaaa"), (Ids{258, 258}));
    }

    void piecesAreNeverMergedAcross()
    {
        // "a b" would merge "a" with "Ġ" if pieces did not separate them: " b" is its own piece.
        const std::string space = spelled(' ');
        const Tokenizer tok = Tokenizer::from_embedded_vocab(small_vocab({{"a", space}, {space, "b"}}));
        QCOMPARE(tok.encode("a b"), (Ids{byte_id('a'), 259}));
    }

    void controlTokensSpelledInTextAreText()
    {
        EmbeddedVocab v = small_vocab({});
        const Tokenizer tok = Tokenizer::from_embedded_vocab(v);
        const Ids ids = tok.encode("<|im_start|>");
        QVERIFY(!ids.empty());
        QVERIFY(std::find(ids.begin(), ids.end(), 1) == ids.end());
        QCOMPARE(tok.decode(ids), std::string("<|im_start|>"));
        QCOMPARE(tok.special_token_id("<|im_start|>"), 1);
        QCOMPARE(tok.special_token_id("a"), -1);  // a normal token is no control token
        QCOMPARE(tok.decode(Ids{1, byte_id('h'), byte_id('i'), 0}), std::string("hi"));  // control: nothing
        QVERIFY(tok.is_end_of_generation(0));   // EOS, and <|endoftext|> by its spelling
        QVERIFY(!tok.is_end_of_generation(1));
    }

    void everyByteRoundTripsAndSplitCharactersStream()
    {
        const Tokenizer tok = Tokenizer::from_embedded_vocab(small_vocab({}));
        std::string all;
        for (int b = 1; b < 128; ++b)
            all += static_cast<char>(b);
        all += "é€😀";
        const Ids ids = tok.encode(all);
        QCOMPARE(tok.decode(ids), all);
        // "€" is three byte tokens: decoded alone, the first is incomplete (U+FFFD), and the
        // streamer holds it back until the character is whole.
        const Ids euro = tok.encode("€");
        QCOMPARE(euro.size(), size_t(3));
        QCOMPARE(tok.decode(Ids{euro[0]}), std::string("\xEF\xBF\xBD"));
        TextStreamer streamer(tok);
        QCOMPARE(streamer.put(euro[0]), std::string());
        QCOMPARE(streamer.put(euro[1]), std::string());
        QCOMPARE(streamer.put(euro[2]), std::string("€"));
        QCOMPARE(streamer.finish(), std::string());
        // Bytes that are not UTF-8 go in and come out repaired, one U+FFFD each.
        QCOMPARE(tok.decode(tok.encode("a\xFF" "b")), std::string("a\xEF\xBF\xBD" "b"));
        // Token by token, the exact bytes: a split character's pieces, an invalid byte as itself,
        // a control token nothing.
        QCOMPARE(tok.token_bytes(euro[0]) + tok.token_bytes(euro[1]) + tok.token_bytes(euro[2]), std::string("€"));
        QCOMPARE(tok.token_bytes(euro[0]), std::string("\xE2"));
        QCOMPARE(tok.token_bytes(byte_id(0xFF)), std::string("\xFF"));
        QCOMPARE(tok.token_bytes(1), std::string());
        std::string spelled;
        for (const int32_t id : ids)
            spelled += tok.token_bytes(id);
        QCOMPARE(spelled, all);
    }

    void symbolsOutsideTheVocabularyFallBackToBytes()
    {
        // A merge whose result is no token: its bytes are used instead (llama.cpp's rule).
        EmbeddedVocab v = small_vocab({{"x", "y"}});
        v.tokens[258] = "not-xy";
        const Tokenizer tok = Tokenizer::from_embedded_vocab(v);
        QCOMPARE(tok.encode("xy"), (Ids{byte_id('x'), byte_id('y')}));
    }

    void longTextWithoutSpacesEnds()
    {
        // One 256 KiB piece: quadratic merging would take minutes; the heap takes well under a second.
        const Tokenizer tok = Tokenizer::from_embedded_vocab(small_vocab({{"a", "a"}, {"aa", "aa"}}));
        const Ids ids = tok.encode(std::string(1 << 18, 'a'));
        QCOMPARE(ids.size(), size_t(1 << 16));
        QVERIFY(std::all_of(ids.begin(), ids.end(), [](int32_t id) { return id == 259; }));
    }

    void badVocabulariesAreRefusedByName()
    {
        EmbeddedVocab no_merges = small_vocab({});
        no_merges.merges.clear();
        QVERIFY_THROWS_EXCEPTION(Error, Tokenizer::from_embedded_vocab(no_merges));
        try {
            Tokenizer::from_embedded_vocab(no_merges);
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("tokenizer.ggml.merges") != std::string::npos);
        }
        EmbeddedVocab bad_merge = small_vocab({{"a", "b"}});
        bad_merge.merges[0] = "ab";
        QVERIFY_THROWS_EXCEPTION(Error, Tokenizer::from_embedded_vocab(bad_merge));
        try {
            Tokenizer::from_embedded_vocab(small_vocab({}, "no-such-pre"));
            QFAIL("an unknown pre-tokenizer was accepted");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("\"no-such-pre\"") != std::string::npos);
            QVERIFY(std::string(e.what()).find("smollm") != std::string::npos);
        }
        EmbeddedVocab duplicate = small_vocab({});
        duplicate.tokens[5] = duplicate.tokens[6];
        QVERIFY_THROWS_EXCEPTION(Error, Tokenizer::from_embedded_vocab(duplicate));
        EmbeddedVocab bad_eos = small_vocab({});
        bad_eos.eos_id = 100000;
        QVERIFY_THROWS_EXCEPTION(Error, Tokenizer::from_embedded_vocab(bad_eos));
    }

    void preTokenizersCutAsTheirExpressionsSay()
    {
        const auto split = [](const char* pre, const char* text) {
            std::vector<std::string> out;
            for (const auto piece : PreTokenizer(pre).split(text))
                out.emplace_back(piece);
            return out;
        };
        using Pieces = std::vector<std::string>;
        QCOMPARE(split("gpt2", "Hello world's 123  x\n"), (Pieces{"Hello", " world", "'s", " 123", " ", " x", "\n"}));
        QCOMPARE(split("smollm", "In 1984, ok"), (Pieces{"In", " ", "1", "9", "8", "4", ",", " ok"}));
        QCOMPARE(split("llama-bpe", "12345 DON'T"), (Pieces{"123", "45", " DON", "'T"}));
        QCOMPARE(split("qwen2", "12 ab"), (Pieces{"1", "2", " ab"}));
        QCOMPARE(split("", "a+b"), (Pieces{"a", "+", "b"}));  // no tokenizer.ggml.pre: llama.cpp's default
        QVERIFY(PreTokenizer("llama-bpe").ignore_merges());
        QVERIFY(!PreTokenizer("smollm").ignore_merges());
        QCOMPARE(split("smollm", "\xC3\xA9t\xC3\xA9 \xFF\xFE"), (Pieces{"\xC3\xA9t\xC3\xA9", " ", "\xFF\xFE"}));
    }

    void smollm2MatchesLlamaCpp()
    {
        PYRAMID_REQUIRE_DEFAULT_MODEL(model);
        PYRAMID_REQUIRE_SHARED(vectors_path, "data/smollm2-tokenizer-vectors.json");
        const GgufFile file = GgufFile::open(model);
        const auto vocab = read_gguf_vocab(file);
        QVERIFY(vocab);
        const Tokenizer tok = Tokenizer::from_embedded_vocab(*vocab);
        QCOMPARE(tok.vocab_size(), 49152);
        QVERIFY(!tok.add_bos());
        QCOMPARE(tok.special_token_id("<|im_start|>"), 1);
        QCOMPARE(tok.special_token_id("<|im_end|>"), 2);
        QVERIFY(tok.is_end_of_generation(2));
        QVERIFY(tok.is_end_of_generation(0));  // <|endoftext|>

        std::ifstream in(vectors_path);
        const nlohmann::json vectors = nlohmann::json::parse(in);
        int checked = 0;
        for (const auto& c : vectors.at("cases")) {
            const std::string text = c.at("text");
            const Ids want = c.at("ids");
            const Ids got = tok.encode(text);
            QVERIFY2(got == want, ("ids differ from llama.cpp's for " + nlohmann::json(text).dump() + ": got " +
                                   nlohmann::json(got).dump() + ", llama.cpp " + nlohmann::json(want).dump())
                                      .c_str());
            QCOMPARE(tok.decode(got), text);
            ++checked;
        }
        QCOMPARE(checked, static_cast<int>(vectors.at("cases").size()));
        QVERIFY(checked >= 80);
    }
};

QTEST_GUILESS_MAIN(ByteLevelBpeTest)
#include "byte_level_bpe_test.moc"
