// splitMarkdown: prose and fenced code blocks, an unclosed fence while a reply streams;
// markdownToSafeHtml: no raw HTML, no images; SegmentListModel: changes only what changed.
#include <QRegularExpression>
#include <QTextBlock>
#include <cmath>
#include <QSignalSpy>
#include <QTest>
#include <QTextDocument>

#include "app_theme.h"
#include "code_highlighter.h"
#include "markdown_html.h"
#include "markdown_segments.h"
#include "segment_list_model.h"

using Kind = MarkdownSegment::Kind;

namespace {

QString plainTextOf(const QString& html)
{
    QTextDocument document;
    document.setHtml(html);
    return document.toPlainText();
}

// The colour `html` gives the first fragment whose text contains `word` (invalid: none).
QColor colourOf(const QString& html, const QString& word)
{
    QTextDocument document;
    document.setHtml(html);
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next())
        for (auto it = block.begin(); !it.atEnd(); ++it)
            if (it.fragment().text().contains(word))
                return it.fragment().charFormat().hasProperty(QTextFormat::ForegroundBrush)
                           ? it.fragment().charFormat().foreground().color()
                           : QColor();
    return QColor();
}

// WCAG 2 contrast ratio.
double contrast(const QColor& a, const QColor& b)
{
    const auto luminance = [](const QColor& c) {
        const auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
    };
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

} // namespace

class MarkdownTest : public QObject {
    Q_OBJECT

private slots:
    void proseOnly()
    {
        const auto segments = splitMarkdown("Hello **world**\n\n- a\n- b");
        QCOMPARE(segments.size(), 1);
        QCOMPARE(segments[0].kind, Kind::Prose);
        QCOMPARE(segments[0].text, QStringLiteral("Hello **world**\n\n- a\n- b"));
    }

    void codeBlocksBetweenProse()
    {
        const auto segments = splitMarkdown("Try this:\n```python\nprint(1)\n\nprint(2)\n```\nThen ~~~\n~~~\nraw\n~~~\ndone");
        QCOMPARE(segments.size(), 5);
        QCOMPARE(segments[0].kind, Kind::Prose);
        QCOMPARE(segments[0].text, QStringLiteral("Try this:"));
        QCOMPARE(segments[1].kind, Kind::Code);
        QCOMPARE(segments[1].language, QStringLiteral("python"));
        QCOMPARE(segments[1].text, QStringLiteral("print(1)\n\nprint(2)"));
        QCOMPARE(segments[2].text, QStringLiteral("Then ~~~"));  // not at the start of a line
        QCOMPARE(segments[3].kind, Kind::Code);
        QCOMPARE(segments[3].language, QString());
        QCOMPARE(segments[3].text, QStringLiteral("raw"));
        QCOMPARE(segments[4].text, QStringLiteral("done"));
    }

    void fencesOnlyCloseWithTheirOwnMarker()
    {
        const auto segments = splitMarkdown("```\na\n~~~\nb\n```");
        QCOMPARE(segments.size(), 1);
        QCOMPARE(segments[0].kind, Kind::Code);
        QCOMPARE(segments[0].text, QStringLiteral("a\n~~~\nb"));
    }

    void unclosedFenceRunsToTheEnd()
    {
        const auto segments = splitMarkdown("Code:\n```cpp\nint main() {");
        QCOMPARE(segments.size(), 2);
        QCOMPARE(segments[1].kind, Kind::Code);
        QCOMPARE(segments[1].language, QStringLiteral("cpp"));
        QCOMPARE(segments[1].text, QStringLiteral("int main() {"));
        QCOMPARE(segments[1].openFence, QStringLiteral("```"));
        QCOMPARE(splitMarkdown("~~~~\nx\n~~~~").at(0).openFence, QString());  // closed
        QCOMPARE(splitMarkdown("~~~~\nx\n~~~").at(0).openFence, QStringLiteral("~~~~"));  // too short to close
    }

    // CommonMark: a longer fence holds shorter ones, and a backtick fence's info string may not
    // contain a backtick.
    void aLongerFenceHoldsShorterOnes()
    {
        const auto segments = splitMarkdown("````markdown\n```python\nx\n```\n````\nAfter.");
        QCOMPARE(segments.size(), 2);
        QCOMPARE(segments[0].kind, Kind::Code);
        QCOMPARE(segments[0].language, QStringLiteral("markdown"));
        QCOMPARE(segments[0].text, QStringLiteral("```python\nx\n```"));
        QCOMPARE(segments[1].kind, Kind::Prose);
        QCOMPARE(segments[1].text, QStringLiteral("After."));

        const auto inline_code = splitMarkdown("```ls``` to list\nmore prose");
        QCOMPARE(inline_code.size(), 1);
        QCOMPARE(inline_code[0].kind, Kind::Prose);
    }

    void deepIndentIsNotAFence()
    {
        const auto segments = splitMarkdown("    ```\n    code");
        QCOMPARE(segments.size(), 1);
        QCOMPARE(segments[0].kind, Kind::Prose);
    }

    // Raw HTML shows as typed: with it on, Qt's importer drops what follows an unclosed tag,
    // and styles can hide text.
    void htmlInMarkdownShowsAsTyped()
    {
        for (const QString& markdown : {QStringLiteral("a<br>b\n\nc"), QStringLiteral("| x |\n|---|\n| 1<br>2 |\n\nafter"),
                                        QStringLiteral("<span style=\"color:transparent\">HIDDEN</span> end")}) {
            const QString plain = plainTextOf(markdownToSafeHtml(markdown));
            for (const QString& word : markdown.split(QRegularExpression("[^A-Za-z0-9<>]+"), Qt::SkipEmptyParts))
                QVERIFY2(plain.contains(word), qPrintable(word + " missing from: " + plain));
        }
    }

    // Images would be fetched from the network or read from local files.
    void imagesShowAsTheirDescription()
    {
        const QString html = markdownToSafeHtml("see ![a cat](http://example.com/cat.png) and ![x](file:///etc/x.png)\n\n"
                                                "![](http://example.com/no-alt.png)");
        QVERIFY2(!html.contains("<img"), qPrintable(html));
        const QString plain = plainTextOf(html);
        QVERIFY2(plain.contains("[a cat: http://example.com/cat.png]"), qPrintable(plain));
        QVERIFY2(plain.contains("[x: file:///etc/x.png]"), qPrintable(plain));
    }

    // Issue 38: a single line break stays one, as chat apps show it; lists, tables and
    // headings read as before.
    void singleLineBreaksAreKept()
    {
        const QString html = markdownToSafeHtml("Roses are red,\nviolets are blue.\n\nNew paragraph");
        // Markdown alone would give "Roses are red, violets are blue." on one line.
        QCOMPARE(plainTextOf(html), QStringLiteral("Roses are red,\nviolets are blue.\nNew paragraph"));
        const QString table = markdownToSafeHtml("| a | b |\n|---|---|\n| 1 | 2 |\n\n# Title\n- one\n- two");
        QVERIFY2(table.contains("<table"), qPrintable(table));
        QCOMPARE(table.count("<td"), 4);  // still two rows of two cells
        // A light grid, as chat apps draw tables.
        QVERIFY2(table.contains("border=\"1\""), qPrintable(table));
        QVERIFY2(table.contains("border-collapse:collapse"), qPrintable(table));
        QVERIFY2(plainTextOf(table).contains("Title\none\ntwo"), qPrintable(plainTextOf(table)));
    }

    void markdownStillRenders()
    {
        const QString html = markdownToSafeHtml("**bold** and `code`\n\n- one\n- two");
        QVERIFY2(html.contains("<body>"), qPrintable(html));  // the view's font, not the application's
        QVERIFY(html.contains("font-weight:700") || html.contains("font-weight:600"));
        QCOMPARE(plainTextOf(html), QStringLiteral("bold and code\none\ntwo"));
    }

    // A streamed reply changes only its last segment, or adds one: the rows above keep their
    // delegates (no reset, no change signal for them).
    void segmentsChangeOnlyWhereTheTextDid()
    {
        SegmentListModel model(true);
        model.setText("a\n```sh\nls\n```\nb");
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.data(model.index(1), SegmentListModel::CodeRole).toBool(), true);
        QCOMPARE(model.data(model.index(1), SegmentListModel::LanguageRole).toString(), QStringLiteral("sh"));
        QCOMPARE(model.data(model.index(1), SegmentListModel::TextRole).toString(), QStringLiteral("ls"));
        QVERIFY(model.data(model.index(2), SegmentListModel::HtmlRole).toString().contains("b"));
        QVERIFY(model.data(model.index(1), SegmentListModel::HtmlRole).toString().isEmpty());  // code is not rendered

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        model.setText("a\n```sh\nls\n```\nb and more");
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed[0][0].toModelIndex().row(), 2);
        QCOMPARE(inserted.size(), 0);

        model.setText("a\n```sh\nls\n```\nb and more\n```py\nx");
        for (const QList<QVariant>& change : changed)
            QCOMPARE(change[0].toModelIndex().row(), 2);  // at most its late rendering; 0 and 1 stay
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(inserted[0][1].toInt(), 3);
        QCOMPARE(model.rowCount(), 4);

        model.setText("a");
        QCOMPARE(removed.size(), 1);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(reset.size(), 0);
    }

    // A long growing paragraph is not rendered again for every piece: at most once per
    // kRenderSpacing times its rendering cost, and its latest text is rendered in the end.
    void aGrowingParagraphIsRenderedAtItsOwnPace()
    {
        SegmentListModel model(true);
        QString text = QStringLiteral("Start.");
        for (int i = 0; i < 300; ++i)
            text += QStringLiteral(" A sentence of **prose** that goes on and on, number %1.").arg(i);
        model.setText(text);
        QCOMPARE(model.renderCount(), 1);
        for (int piece = 0; piece < 50; ++piece) {
            text += QStringLiteral(" more%1").arg(piece);
            model.setText(text);
        }
        QCOMPARE(model.data(model.index(0), SegmentListModel::TextRole).toString(), text);  // the text is current
        QVERIFY2(model.renderCount() < 10, qPrintable(QString::number(model.renderCount())));
        QTRY_VERIFY(model.data(model.index(0), SegmentListModel::HtmlRole).toString().contains("more49"));

        // Once a code block follows, the paragraph above it is rendered whole at once.
        text += QStringLiteral(" last words");
        model.setText(text);
        model.setText(text + QStringLiteral("\n```sh\nls"));
        QVERIFY(model.data(model.index(0), SegmentListModel::HtmlRole).toString().contains("last words"));
    }

    // Issue 38: code blocks are coloured by GNU Source-highlight, by what each piece is; the
    // text stays the code as written (escaped, line breaks kept).
    void codeIsHighlightedByItsLanguage()
    {
        CodeHighlighter highlighter;
        const QString code = QStringLiteral("def area(r):\n    # a <circle> & more\n    return 3.14 * r * r + len(\"x\")");
        const CodeHighlighter::Html html = highlighter.highlight(code, QStringLiteral("Python"));
        QVERIFY2(!html.light.isEmpty() && !html.dark.isEmpty(), "python is known");
        QCOMPARE(plainTextOf(html.light), code);
        QCOMPARE(plainTextOf(html.dark), code);
        using C = CodeHighlighter::Category;
        QCOMPARE(colourOf(html.light, "def"), CodeHighlighter::colour(C::Keyword, false));
        QCOMPARE(colourOf(html.dark, "def"), CodeHighlighter::colour(C::Keyword, true));
        QCOMPARE(colourOf(html.light, "<circle>"), CodeHighlighter::colour(C::Comment, false));
        QCOMPARE(colourOf(html.light, "3.14"), CodeHighlighter::colour(C::Number, false));
        QCOMPARE(colourOf(html.light, "\"x\""), CodeHighlighter::colour(C::String, false));
        QCOMPARE(colourOf(html.light, "area"), CodeHighlighter::colour(C::Function, false));

        // A comment that spans lines stays one (the library keeps its state across lines).
        const CodeHighlighter::Html c = highlighter.highlight("int x; /* one\ntwo */ int y;", "c++");
        QCOMPARE(colourOf(c.light, "two"), CodeHighlighter::colour(C::Comment, false));
        QCOMPARE(colourOf(c.light, "int"), CodeHighlighter::colour(C::Type, false));
        QVERIFY(!highlighter.highlight("fn main() {}", "rust").light.isEmpty());  // lang.map says rs
    }

    void anUnknownLanguageStaysPlain()
    {
        CodeHighlighter highlighter;
        QCOMPARE(highlighter.highlight("+++[>]", "brainfudge").light, QString());
        QCOMPARE(highlighter.highlight("x = 1", "").light, QString());
        CodeHighlighter missing(QStringLiteral("/nonexistent/source-highlight"));  // no definitions
        QCOMPARE(missing.highlight("x = 1", "python").light, QString());
    }

    // Each colour keeps 4.5:1 on the code block's background (the view's tint of the base
    // colour) in the app's light and dark themes.
    void codeColoursKeepContrastInBothThemes()
    {
        using C = CodeHighlighter::Category;
        for (const QString theme : {QStringLiteral("light"), QStringLiteral("dark")}) {
            const QPalette palette = themePalette(theme, QPalette());
            const QColor base = palette.color(QPalette::Base), text = palette.color(QPalette::Text);
            const QColor block = QColor::fromRgbF(base.redF() * 0.93 + text.redF() * 0.07,
                                                  base.greenF() * 0.93 + text.greenF() * 0.07,
                                                  base.blueF() * 0.93 + text.blueF() * 0.07);
            for (C category : {C::Keyword, C::Type, C::String, C::Comment, C::Number, C::Function}) {
                const QColor colour = CodeHighlighter::colour(category, theme == QLatin1String("dark"));
                QVERIFY2(contrast(colour, block) >= 4.5 && contrast(colour, base) >= 4.5,
                         qPrintable(QStringLiteral("%1 %2 on %3: %4").arg(theme, colour.name(), block.name())
                                        .arg(contrast(colour, block))));
            }
        }
    }

    // The chat view reads the coloured code from the message's segments.
    void segmentsCarryHighlightedCode()
    {
        CodeHighlighter highlighter;
        SegmentListModel model(true, &highlighter);
        model.setText("Run:\n```sh\necho \"hi\"\n```\n```nosuchlanguage\nx\n```");
        QCOMPARE(model.rowCount(), 3);
        const QString light = model.data(model.index(1), SegmentListModel::CodeLightRole).toString();
        QCOMPARE(plainTextOf(light), QStringLiteral("echo \"hi\""));
        QCOMPARE(colourOf(light, "\"hi\""), CodeHighlighter::colour(CodeHighlighter::Category::String, false));
        QVERIFY(!model.data(model.index(1), SegmentListModel::CodeDarkRole).toString().isEmpty());
        QCOMPARE(model.data(model.index(2), SegmentListModel::CodeLightRole).toString(), QString());  // plain
        QCOMPARE(model.data(model.index(0), SegmentListModel::CodeLightRole).toString(), QString());  // prose
    }

    // Issue 38: block quotes are segments of their own (the view draws a bar beside them),
    // with the Markdown inside them; a line that continues the quote's paragraph stays in it.
    void blockQuotesAreSegments()
    {
        const auto segments = splitMarkdown("As Knuth said:\n> Premature **optimization**\nis the root\n>\n> > of all evil\n\nIndeed.\n```\n> not a quote\n```");
        QCOMPARE(segments.size(), 4);
        QCOMPARE(segments[0].kind, Kind::Prose);
        QCOMPARE(segments[0].text, QStringLiteral("As Knuth said:"));
        QCOMPARE(segments[1].kind, Kind::Quote);
        QCOMPARE(segments[1].text, QStringLiteral("Premature **optimization**\nis the root\n\n> of all evil"));
        QCOMPARE(segments[2].kind, Kind::Prose);
        QCOMPARE(segments[2].text, QStringLiteral("\nIndeed."));
        QCOMPARE(segments[3].kind, Kind::Code);
        QCOMPARE(segments[3].text, QStringLiteral("> not a quote"));
        // A user's message is shown as typed: its quotes stay in the prose.
        const auto typed = splitMarkdown("> quoted\nreply", Quotes::AsProse);
        QCOMPARE(typed.size(), 1);
        QCOMPARE(typed[0].kind, Kind::Prose);

        SegmentListModel model(true);
        model.setText("Intro\n> *quoted*\n\nafter");
        QCOMPARE(model.rowCount(), 3);
        QVERIFY(model.data(model.index(1), SegmentListModel::QuoteRole).toBool());
        QVERIFY(!model.data(model.index(0), SegmentListModel::QuoteRole).toBool());
        QCOMPARE(plainTextOf(model.data(model.index(1), SegmentListModel::HtmlRole).toString()), QStringLiteral("quoted"));
    }

    // Issue 38: TeX between dollars is shown as written; Markdown would take its * for
    // emphasis and its backslashes for escapes. Prices and code stay what they were.
    void mathIsLeftReadable()
    {
        const QString inlineMath = markdownToSafeHtml("Area: $a*b*c$ and $\\{x \\mid x_1 > 0\\}$, done.");
        QCOMPARE(plainTextOf(inlineMath), QStringLiteral("Area: $a*b*c$ and $\\{x \\mid x_1 > 0\\}$, done."));
        QVERIFY2(!inlineMath.contains("font-style:italic"), qPrintable(inlineMath));
        const QString display = markdownToSafeHtml("Sum:\n$$\n\\sum_{i=1}^n i = \\frac{n(n+1)}{2}\n$$\nok");
        QCOMPARE(plainTextOf(display), QStringLiteral("Sum:\n$$\n\\sum_{i=1}^n i = \\frac{n(n+1)}{2}\n$$\nok"));
        // Not math: a price, a dollar before a space, dollars in code; emphasis still works.
        QCOMPARE(plainTextOf(markdownToSafeHtml("It costs $5 and $10 *today*.")), QStringLiteral("It costs $5 and $10 today."));
        QVERIFY(markdownToSafeHtml("It costs $5 and $10 *today*.").contains("font-style:italic"));
        QCOMPARE(plainTextOf(markdownToSafeHtml("Use `$a*b*c$` or $ x$.")), QStringLiteral("Use $a*b*c$ or $ x$."));
    }

    void aUsersMessageIsNotRendered()
    {
        SegmentListModel model(false);
        model.setText("**not bold** <br>");
        QCOMPARE(model.data(model.index(0), SegmentListModel::HtmlRole).toString(), QString());
        QCOMPARE(model.data(model.index(0), SegmentListModel::TextRole).toString(), QStringLiteral("**not bold** <br>"));
    }
};

QTEST_MAIN(MarkdownTest)
#include "app_markdown_test.moc"
