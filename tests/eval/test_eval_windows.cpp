// How pyramid-eval cuts a text into windows: BOS first, P + C tokens each, consecutive and
// non-overlapping, and (paragraph alignment) starting at eligible paragraphs with exactly the
// tokens the text has from there.
#include <QtTest>

#include "model/gguf_file.h"
#include "model/gguf_vocab.h"
#include "shared_data.h"
#include "text_windows.h"
#include "util/error.h"

using namespace pyramid;

namespace {

const std::string kText =
    "Once upon a time, there was a cat named Tom. Tom liked to sleep in the sun.\n\n"
    "One day, it rained. Tom was sad because he could not sleep outside.\n\n"
    "Once upon a time, a girl named Lily had a red ball. She played with it every day.\n"
    "Her friend Sam wanted the ball too.\n\n"
    "  \n"
    "They shared the ball and were happy.\n\n"
    "Once upon a time, a big dog ran in the park.\n";

size_t nth_prefixed_start(const std::string& text, int n)
{
    int seen = 0;
    for (size_t s : paragraph_starts(text))
        if (text.compare(s, 16, "Once upon a time") == 0 && seen++ == n)
            return s;
    return std::string::npos;
}

} // namespace

class EvalWindowsTest : public QObject {
    Q_OBJECT
private slots:
    void paragraphs_are_found_after_blank_lines()
    {
        const std::string text = "\n\nA a\nB b\n\n\nC c\n \t\nD d";
        const std::vector<size_t> expected{2, 12, 19};
        QCOMPARE(paragraph_starts(text), expected);
    }

    void token_windows_are_consecutive()
    {
        PYRAMID_REQUIRE_SHARED(tok_path, "models/tok512.model");
        const Tokenizer tok = Tokenizer::from_model_file(tok_path);
        const WindowOptions options{8, 4, 3, WindowAlign::Tokens, ""};
        const auto windows = make_windows(kText, tok, options);
        const std::vector<int32_t> all = tok.encode(kText);
        QCOMPARE(windows.size(), size_t(3));
        for (size_t w = 0; w < windows.size(); ++w) {
            QCOMPARE(windows[w].size(), size_t(12));
            QCOMPARE(windows[w][0], tok.bos_id());
            const std::vector<int32_t> expected(all.begin() + 11 * w, all.begin() + 11 * (w + 1));
            QCOMPARE(std::vector<int32_t>(windows[w].begin() + 1, windows[w].end()), expected);
        }
    }

    void paragraph_windows_start_at_prefixed_paragraphs()
    {
        PYRAMID_REQUIRE_SHARED(tok_path, "models/tok512.model");
        const Tokenizer tok = Tokenizer::from_model_file(tok_path);
        const WindowOptions options{20, 10, 2, WindowAlign::Paragraphs, "Once upon a time"};
        // The first window ends inside the first story, so the second starts at the second.
        const size_t second = nth_prefixed_start(kText, 1);
        QVERIFY(tok.encode(kText.substr(0, second)).size() > 29);
        const auto windows = make_windows(kText, tok, options);
        QCOMPARE(windows.size(), size_t(2));
        for (int w = 0; w < 2; ++w) {
            const std::vector<int32_t> from_here = tok.encode(kText.substr(nth_prefixed_start(kText, w)));
            QCOMPARE(windows[w].size(), size_t(30));
            QCOMPARE(windows[w][0], tok.bos_id());
            QCOMPARE(std::vector<int32_t>(windows[w].begin() + 1, windows[w].end()),
                     std::vector<int32_t>(from_here.begin(), from_here.begin() + 29));
        }
    }

    void a_window_skips_the_stories_it_reached()
    {
        PYRAMID_REQUIRE_SHARED(tok_path, "models/tok512.model");
        const Tokenizer tok = Tokenizer::from_model_file(tok_path);
        const size_t second = nth_prefixed_start(kText, 1), third = nth_prefixed_start(kText, 2);
        const auto count = [&](size_t from) { return static_cast<int>(tok.encode(kText.substr(from)).size()); };
        const int need = static_cast<int>(tok.encode(kText.substr(0, second)).size()) + 3;  // into story 2
        QVERIFY(count(second) >= need);  // a window could start at the second story...
        QVERIFY(count(third) < need);    // ...but not at the third
        WindowOptions options{need - 2, 3, 1, WindowAlign::Paragraphs, "Once upon a time"};  // P + C - 1 = need
        QCOMPARE(make_windows(kText, tok, options).size(), size_t(1));
        options.count = 2;  // the second window may not start inside the first
        QVERIFY_THROWS_EXCEPTION(Error, make_windows(kText, tok, options));
    }

    void too_few_windows_is_an_error_that_says_how_many()
    {
        PYRAMID_REQUIRE_SHARED(tok_path, "models/tok512.model");
        const Tokenizer tok = Tokenizer::from_model_file(tok_path);
        try {
            make_windows(kText, tok, WindowOptions{300, 300, 5, WindowAlign::Tokens, ""});
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("holds only 0 windows") != std::string::npos, e.what());
        }
    }

    void llama_cpp_chunks_as_llama_perplexity_cuts_them()
    {
        PYRAMID_REQUIRE_SHARED(tok_path, "models/tok512.model");
        const Tokenizer tok = Tokenizer::from_model_file(tok_path);  // adds BOS
        // -c 12: chunks of 12 tokens of [BOS] + text, each chunk's first token replaced by BOS.
        const WindowOptions options{7, 5, 3, WindowAlign::LlamaCpp, ""};
        const auto windows = make_windows(kText, tok, options);
        std::vector<int32_t> all{tok.bos_id()};
        for (const int32_t id : tok.encode(kText))
            all.push_back(id);
        QCOMPARE(windows.size(), size_t(3));
        for (size_t w = 0; w < windows.size(); ++w) {
            std::vector<int32_t> expected(all.begin() + 12 * w, all.begin() + 12 * (w + 1));
            expected.front() = tok.bos_id();
            QCOMPARE(windows[w], expected);
        }
        QCOMPARE(to_string(WindowAlign::LlamaCpp), std::string("llama.cpp"));
        QCOMPARE(parse_window_align("llama.cpp"), WindowAlign::LlamaCpp);
    }

    void windows_of_a_model_without_bos_hold_only_text()
    {
        PYRAMID_REQUIRE_DEFAULT_MODEL(model);  // SmolLM2: add_bos_token is false
        const GgufFile file = GgufFile::open(model);
        const Tokenizer tok = Tokenizer::from_embedded_vocab(*read_gguf_vocab(file));
        const std::vector<int32_t> all = tok.encode(kText);
        for (const WindowAlign align : {WindowAlign::Tokens, WindowAlign::LlamaCpp}) {
            const auto windows = make_windows(kText, tok, WindowOptions{6, 4, 2, align, ""});
            QCOMPARE(windows.size(), size_t(2));
            for (size_t w = 0; w < 2; ++w)
                QCOMPARE(windows[w], std::vector<int32_t>(all.begin() + 10 * w, all.begin() + 10 * (w + 1)));
        }
    }
};

QTEST_APPLESS_MAIN(EvalWindowsTest)
#include "test_eval_windows.moc"
