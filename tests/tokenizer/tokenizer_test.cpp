// Tokenizer from SentencePiece model files and from a hand-made embedded vocabulary:
// llama.cpp's LLaMA-2 test vectors, round trips, control text, special ids, errors.
#include <QTemporaryDir>
#include <QtTest>

#include <limits>

#include <algorithm>
#include <cctype>
#include <fstream>

#include "error_message.h"
#include "shared_data.h"
#include "tokenizer/sentencepiece_model_builder.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer_test_data.h"
#include "util/error.h"

using namespace pyramid;
using pyramid::test::error_of;

namespace {

const std::string kSpace = "\xE2\x96\x81";  // U+2581, SentencePiece's escaped space

int32_t id_of(const Tokenizer& tok, const std::string& piece)
{
    for (int32_t id = 0; id < tok.vocab_size(); ++id)
        if (tok.piece(id) == piece)
            return id;
    return -1;
}

}  // namespace

class TokenizerTest : public QObject {
    Q_OBJECT

private slots:
    void llamaVectorsFromTokenizerModel()
    {
        PYRAMID_REQUIRE_SHARED(model, "models/tokenizer.model");
        PYRAMID_REQUIRE_SHARED(inp, "data/ggml-vocab-llama-spm.gguf.inp");
        PYRAMID_REQUIRE_SHARED(out, "data/ggml-vocab-llama-spm.gguf.out");
        const Tokenizer tok = Tokenizer::from_model_file(model);
        const auto inputs = test::split_vocab_test_inputs(test::read_text_file(inp));
        const auto expected = test::parse_id_lines(test::read_text_file(out));
        QCOMPARE(inputs.size(), expected.size());
        QVERIFY(inputs.size() >= 40);
        for (size_t i = 0; i < inputs.size(); ++i) {
            const auto ids = tok.encode(inputs[i]);
            QVERIFY2(ids == expected[i], qPrintable(QString("vector %1: \"%2\"").arg(i).arg(QString::fromStdString(inputs[i]))));
        }
    }

    void roundTripsLlama()
    {
        PYRAMID_REQUIRE_SHARED(model, "models/tokenizer.model");
        PYRAMID_REQUIRE_SHARED(inp, "data/ggml-vocab-llama-spm.gguf.inp");
        PYRAMID_REQUIRE_SHARED(wiki, "data/wikitext-2-raw-v1.test.txt");
        const Tokenizer tok = Tokenizer::from_model_file(model);
        auto texts = test::split_vocab_test_inputs(test::read_text_file(inp));
        for (auto& line : test::first_lines(wiki, 300))
            texts.push_back(line);
        texts.push_back("Emoji 👋🏽🦙 and 日本語のテキスト, Ελληνικά, עברית.");
        for (const auto& text : texts) {
            const auto ids = tok.encode(text);
            QCOMPARE(tok.decode(ids), text);
        }
    }

    // The bytes of each token, one after another, spell the text with the leading space
    // SentencePiece adds: byte pieces their byte, "▁" a space, BOS and EOS nothing.
    void tokenBytesSpellTheText()
    {
        PYRAMID_REQUIRE_SHARED(model, "models/tokenizer.model");
        PYRAMID_REQUIRE_SHARED(inp, "data/ggml-vocab-llama-spm.gguf.inp");
        const Tokenizer tok = Tokenizer::from_model_file(model);
        auto texts = test::split_vocab_test_inputs(test::read_text_file(inp));
        texts.push_back("Emoji 👋🏽🦙, a\ttab,  two spaces\nand 日本語.");
        for (const auto& text : texts) {
            std::vector<int32_t> ids = {tok.bos_id()};
            for (const int32_t id : tok.encode(text))
                ids.push_back(id);
            ids.push_back(tok.eos_id());
            std::string spelled;
            for (const int32_t id : ids)
                spelled += tok.token_bytes(id);
            QCOMPARE(spelled, text.empty() ? text : " " + text);
        }
        QCOMPARE(tok.token_bytes(3), std::string(1, '\0'));  // <0x00>
        QCOMPARE(tok.token_bytes(13), std::string("\n"));    // <0x0A>
        QCOMPARE(tok.token_bytes(0), tok.decode(std::vector<int32_t>{0}));  // <unk>: as decode writes it
        QVERIFY_THROWS_EXCEPTION(Error, tok.token_bytes(32000));
    }

    void controlTextIsPlainText()
    {
        PYRAMID_REQUIRE_SHARED(model, "models/tokenizer.model");
        const Tokenizer tok = Tokenizer::from_model_file(model);
        const std::string text = "<s>[INST] ignore this </s><s> <unk>";
        const auto ids = tok.encode(text);
        QVERIFY(!ids.empty());
        for (const int32_t id : ids) {
            QVERIFY(id != tok.bos_id());
            QVERIFY(id != tok.eos_id());
            QVERIFY(id != 0);  // <unk>
        }
        QCOMPARE(tok.decode(ids), text);
    }

    void specialIdsAndPieces()
    {
        PYRAMID_REQUIRE_SHARED(model, "models/tokenizer.model");
        const Tokenizer tok = Tokenizer::from_model_file(model);
        QCOMPARE(tok.vocab_size(), 32000);
        QCOMPARE(tok.bos_id(), 1);
        QCOMPARE(tok.eos_id(), 2);
        QVERIFY(tok.add_bos());
        QCOMPARE(tok.piece(1), std::string("<s>"));
        QCOMPARE(tok.piece(2), std::string("</s>"));
        QCOMPARE(tok.piece(3), std::string("<0x00>"));
        QCOMPARE(tok.piece(tok.encode("Hello")[0]), kSpace + "Hello");
        // Control tokens are invisible in decoded text; the first piece loses its space.
        const std::vector<int32_t> ids = {tok.bos_id(), id_of(tok, kSpace + "Hello"), tok.eos_id()};
        QCOMPARE(tok.decode(ids), std::string("Hello"));
        QCOMPARE(tok.decode(std::vector<int32_t>{}), std::string());
        QVERIFY(tok.encode("").empty());
    }

    void neutralLetterDecodesTheSameAnywhere()
    {
        PYRAMID_REQUIRE_SHARED(model, "models/tokenizer.model");
        const Tokenizer tok = Tokenizer::from_model_file(model);
        const int32_t letter = tok.neutral_letter_id();
        QVERIFY(letter >= 0);
        const std::string spelling = tok.piece(letter);
        QCOMPARE(spelling.size(), size_t(1));
        QVERIFY(std::isalpha(static_cast<unsigned char>(spelling[0])));
        const int32_t hello = id_of(tok, kSpace + "Hello");
        const int32_t newline = id_of(tok, "<0x0A>");
        QCOMPARE(tok.decode(std::vector<int32_t>{letter}), spelling);
        QCOMPARE(tok.decode(std::vector<int32_t>{hello, letter, hello}), "Hello" + spelling + " Hello");
        QCOMPARE(tok.decode(std::vector<int32_t>{letter, newline, letter}), spelling + "\n" + spelling);

        // The tiny vocabulary's only one-letter pieces are h, e, l and o; without them, none.
        const Tokenizer tiny = Tokenizer::from_embedded_vocab(test::tiny_vocab());
        QCOMPARE(tiny.piece(tiny.neutral_letter_id()), std::string("o"));
        EmbeddedVocab no_letters = test::tiny_vocab();
        for (auto& piece : no_letters.tokens)
            if (piece.size() == 1)
                piece = "\xC3\xA9" + piece;  // é + letter: two characters, no longer one letter
        QCOMPARE(Tokenizer::from_embedded_vocab(no_letters).neutral_letter_id(), -1);
    }

    void embeddedVocabEncodesWithBpeAndByteFallback()
    {
        const Tokenizer tok = Tokenizer::from_embedded_vocab(test::tiny_vocab());
        QCOMPARE(tok.vocab_size(), 3 + 256 + 10);
        const int32_t hello = id_of(tok, kSpace + "hello");
        const int32_t he = id_of(tok, kSpace + "he");
        QVERIFY(hello > 0 && he > 0);
        QCOMPARE(tok.encode("hello"), (std::vector<int32_t>{hello}));
        // "x" is not a piece: it falls back to its byte, <0x78>.
        QCOMPARE(tok.encode("hex"), (std::vector<int32_t>{he, id_of(tok, "<0x78>")}));
        QCOMPARE(tok.decode(tok.encode("hex hello é")), std::string("hex hello é"));
        QCOMPARE(tok.bos_id(), 1);
        QCOMPARE(tok.eos_id(), 2);
        QVERIFY(tok.add_bos());
    }

    void embeddedVocabKeepsSpecialIdsAndAddBos()
    {
        EmbeddedVocab v = test::tiny_vocab();
        std::swap(v.tokens[1], v.tokens[2]);  // </s> at 1, <s> at 2
        v.bos_id = 2;
        v.eos_id = 1;
        v.add_bos = false;
        const Tokenizer tok = Tokenizer::from_embedded_vocab(v);
        QCOMPARE(tok.bos_id(), 2);
        QCOMPARE(tok.eos_id(), 1);
        QVERIFY(!tok.add_bos());
    }

    void serializedModelIsStable()
    {
        // The same vocabulary always gives the same bytes, and they change with the scores.
        const EmbeddedVocab v = test::tiny_vocab();
        QCOMPARE(build_sentencepiece_model(v), build_sentencepiece_model(v));
        EmbeddedVocab w = v;
        w.scores.back() = 5.0f;
        QVERIFY(build_sentencepiece_model(v) != build_sentencepiece_model(w));
    }

    void tokenizerIsMovable()
    {
        Tokenizer a = Tokenizer::from_embedded_vocab(test::tiny_vocab());
        const auto ids = a.encode("hello");
        Tokenizer b = std::move(a);
        QCOMPARE(b.encode("hello"), ids);
        Tokenizer c = Tokenizer::from_embedded_vocab(test::tiny_vocab());
        c = std::move(b);
        QCOMPARE(c.decode(ids), std::string("hello"));
    }

    void missingFileNamesIt()
    {
        const std::string path = "/nonexistent/dir/tokenizer.model";
        const QString message = error_of([&] { Tokenizer::from_model_file(path); });
        QVERIFY2(message.contains(QString::fromStdString(path)), qPrintable(message));
    }

    void corruptFileNamesIt()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("tokenizer.model").toStdString();
        {
            std::ofstream out(path, std::ios::binary);
            out << "this is not a protobuf \xff\xff\xff\xff\x01";
        }
        const QString message = error_of([&] { Tokenizer::from_model_file(path); });
        QVERIFY2(message.contains(QString::fromStdString(path)), qPrintable(message));
        QVERIFY2(message.contains("not a valid SentencePiece model"), qPrintable(message));

        {
            std::ofstream out(path, std::ios::binary | std::ios::trunc);
        }
        QVERIFY(!error_of([&] { Tokenizer::from_model_file(path); }).isEmpty());
    }

    void badVocabularies_data()
    {
        QTest::addColumn<int>("defect");
        QTest::addColumn<QString>("expected");
        QTest::newRow("gpt2 without merges") << 0 << "has no tokenizer.ggml.merges";
        QTest::newRow("unknown model") << 11 << "tokenizer.ggml.model is \"bert\"";
        QTest::newRow("NaN score") << 12 << "tokenizer.ggml.scores[7] is not a finite number";
        QTest::newRow("short scores") << 1 << "tokenizer.ggml.scores has 268 entries, expected 269";
        QTest::newRow("long types") << 2 << "tokenizer.ggml.token_type has 270 entries, expected 269";
        QTest::newRow("unknown type") << 3 << "tokenizer.ggml.token_type[5] is 7";
        QTest::newRow("unk out of range") << 4 << "tokenizer.ggml.unknown_token_id is 269";
        QTest::newRow("bos out of range") << 5 << "tokenizer.ggml.bos_token_id is -5";
        QTest::newRow("eos out of range") << 6 << "tokenizer.ggml.eos_token_id is 1000";
        QTest::newRow("unk is bos") << 7 << "unknown_token_id 1 (\"<s>\") is also tokenizer.ggml.bos_token_id";
        QTest::newRow("empty token") << 8 << "tokenizer.ggml.tokens[4] is empty";
        QTest::newRow("no tokens") << 9 << "tokenizer.ggml.tokens is empty";
        QTest::newRow("duplicate piece") << 10 << "not a valid SentencePiece model";
    }

    void badVocabularies()
    {
        QFETCH(int, defect);
        QFETCH(QString, expected);
        EmbeddedVocab v = test::tiny_vocab();
        switch (defect) {
        case 0: v.model = "gpt2"; break;
        case 1: v.scores.pop_back(); break;
        case 2: v.token_types.push_back(1); break;
        case 3: v.token_types[5] = 7; break;
        case 4: v.unk_id = 269; break;
        case 5: v.bos_id = -5; break;
        case 6: v.eos_id = 1000; break;
        case 7: v.unk_id = 1; break;
        case 8: v.tokens[4].clear(); break;
        case 9: v.tokens.clear(); v.scores.clear(); v.token_types.clear(); break;
        case 10: v.tokens.back() = v.tokens[260]; break;
        case 11: v.model = "bert"; break;
        case 12: v.scores[7] = std::numeric_limits<float>::quiet_NaN(); break;
        }
        const QString message = error_of([&] { Tokenizer::from_embedded_vocab(v); });
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void unknownTokenTypedControlIsTheUnknownToken()
    {
        // llama.cpp's converters type <unk> as control when tokenizer_config.json calls it
        // special; the id names it.
        const Tokenizer plain = Tokenizer::from_embedded_vocab(test::tiny_vocab());
        EmbeddedVocab v = test::tiny_vocab();
        v.token_types[static_cast<size_t>(v.unk_id)] = 3;
        const Tokenizer converted = Tokenizer::from_embedded_vocab(v);
        QCOMPARE(converted.encode("hello world"), plain.encode("hello world"));

        v.pad_id = v.unk_id;  // pad_token "<unk>", as many fine-tunes set it
        QCOMPARE(Tokenizer::from_embedded_vocab(v).encode("hello world"), plain.encode("hello world"));
    }

    void normalizerFlagsFollowTheFile()
    {
        const Tokenizer prefixed = Tokenizer::from_embedded_vocab(test::tiny_vocab());
        EmbeddedVocab v = test::tiny_vocab();
        v.add_space_prefix = false;
        const Tokenizer bare = Tokenizer::from_embedded_vocab(v);
        QVERIFY(bare.encode("hello") != prefixed.encode("hello"));
        QCOMPARE(bare.decode(bare.encode("hello")), std::string("hello"));
        v.remove_extra_whitespaces = true;
        const Tokenizer squeezed = Tokenizer::from_embedded_vocab(v);
        QCOMPARE(squeezed.encode("a  b"), bare.encode("a b"));
    }

    void idsOutOfRangeAreRejected()
    {
        const Tokenizer tok = Tokenizer::from_embedded_vocab(test::tiny_vocab());
        const QString message = error_of([&] { tok.decode(std::vector<int32_t>{1, 269}); });
        QVERIFY2(message.contains("token id 269 is out of range [0, 269)"), qPrintable(message));
        QVERIFY(!error_of([&] { tok.decode(std::vector<int32_t>{-1}); }).isEmpty());
        QVERIFY(!error_of([&] { tok.piece(269); }).isEmpty());
    }
};

QTEST_APPLESS_MAIN(TokenizerTest)
#include "tokenizer_test.moc"
