// Tokenizers built from GGUF-embedded vocabularies must tokenize exactly as the SentencePiece
// model files of the same vocabulary: LLaMA-2 (32000 pieces) and stories260K (512 pieces).
#include <QtTest>

#include <optional>
#include <sstream>

#include "model/gguf_file.h"
#include "model/gguf_vocab.h"
#include "shared_data.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer_test_data.h"

using namespace pyramid;

namespace {

Tokenizer tokenizer_from_gguf(const std::filesystem::path& path)
{
    const GgufFile file = GgufFile::open(path);
    const std::optional<EmbeddedVocab> vocab = read_gguf_vocab(file);
    if (!vocab)
        throw std::runtime_error(path.string() + " embeds no tokenizer");
    return Tokenizer::from_embedded_vocab(*vocab);
}

// Same pieces and special ids, and the same ids and text for every line of `lines`, each
// alone and all of them joined.
void compare_tokenizers(const Tokenizer& a, const Tokenizer& b, const std::vector<std::string>& lines)
{
    QCOMPARE(a.vocab_size(), b.vocab_size());
    QCOMPARE(a.bos_id(), b.bos_id());
    QCOMPARE(a.eos_id(), b.eos_id());
    for (int32_t id = 0; id < a.vocab_size(); ++id)
        QCOMPARE(a.piece(id), b.piece(id));
    std::string joined;
    for (const auto& line : lines) {
        const auto ids = a.encode(line);
        QCOMPARE(b.encode(line), ids);
        QCOMPARE(b.decode(ids), a.decode(ids));
        QCOMPARE(b.decode(ids), line);
        joined += line + "\n";
    }
    const auto ids = a.encode(joined);
    QCOMPARE(b.encode(joined), ids);
    QCOMPARE(b.decode(ids), joined);
}

}  // namespace

class TokenizerGgufTest : public QObject {
    Q_OBJECT

private slots:
    void llamaVectorsFromGgufVocab()
    {
        PYRAMID_REQUIRE_SHARED(gguf, "models/ggml-vocab-llama-spm.gguf");
        PYRAMID_REQUIRE_SHARED(inp, "data/ggml-vocab-llama-spm.gguf.inp");
        PYRAMID_REQUIRE_SHARED(out, "data/ggml-vocab-llama-spm.gguf.out");
        const Tokenizer tok = tokenizer_from_gguf(gguf);
        QVERIFY(tok.add_bos());
        const auto inputs = test::split_vocab_test_inputs(test::read_text_file(inp));
        const auto expected = test::parse_id_lines(test::read_text_file(out));
        QCOMPARE(inputs.size(), expected.size());
        QVERIFY(inputs.size() >= 40);
        for (size_t i = 0; i < inputs.size(); ++i) {
            const auto ids = tok.encode(inputs[i]);
            QVERIFY2(ids == expected[i], qPrintable(QString("vector %1: \"%2\"").arg(i).arg(QString::fromStdString(inputs[i]))));
            QCOMPARE(tok.decode(ids), inputs[i]);
        }
    }

    void llamaGgufMatchesTokenizerModel()
    {
        PYRAMID_REQUIRE_SHARED(gguf, "models/ggml-vocab-llama-spm.gguf");
        PYRAMID_REQUIRE_SHARED(model, "models/tokenizer.model");
        PYRAMID_REQUIRE_SHARED(wiki, "data/wikitext-2-raw-v1.test.txt");
        PYRAMID_REQUIRE_SHARED(stories, "data/tinystories_val_prefix.txt");
        auto lines = test::first_lines(wiki, 1500);
        for (auto& line : test::first_lines(stories, 300))
            lines.push_back(line);
        lines.push_back("Emoji 👋🏽🦙, 日本語, Ελληνικά, עברית, tabs\tand  runs   of spaces");
        compare_tokenizers(Tokenizer::from_model_file(model), tokenizer_from_gguf(gguf), lines);
    }

    void tok512MatchesStories260kGguf()
    {
        PYRAMID_REQUIRE_SHARED(gguf, "models/stories260K.gguf");
        PYRAMID_REQUIRE_SHARED(model, "models/tok512.model");
        PYRAMID_REQUIRE_SHARED(stories, "data/tinystories_val_prefix.txt");
        const Tokenizer from_gguf = tokenizer_from_gguf(gguf);
        QCOMPARE(from_gguf.vocab_size(), 512);
        compare_tokenizers(Tokenizer::from_model_file(model), from_gguf, test::first_lines(stories, 200));
    }

    void greedyReferenceDecodesWithBoth()
    {
        // Line 3 of the reference holds the generated ids, the decoded text follows to the end.
        PYRAMID_REQUIRE_SHARED(gguf, "models/stories260K.gguf");
        PYRAMID_REQUIRE_SHARED(model, "models/tok512.model");
        PYRAMID_REQUIRE_SHARED(reference, "data/stories260K_greedy256_reference.txt");
        std::istringstream in(test::read_text_file(reference));
        std::string header, ids_line;
        std::getline(in, header);
        std::getline(in, header);
        std::getline(in, ids_line);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        QVERIFY(text.ends_with('\n'));
        text.pop_back();  // the file's final line ending
        const auto ids = test::parse_id_lines(ids_line).at(0);
        QCOMPARE(ids.size(), size_t(256));

        const Tokenizer from_model = Tokenizer::from_model_file(model);
        const Tokenizer from_gguf = tokenizer_from_gguf(gguf);
        QCOMPARE(from_gguf.decode(ids), from_model.decode(ids));
        QCOMPARE(from_gguf.decode(ids), text);
    }
};

QTEST_APPLESS_MAIN(TokenizerGgufTest)
#include "tokenizer_gguf_test.moc"
