// splitMarkdown: prose and fenced code blocks, an unclosed fence while a reply streams.
#include <QTest>

#include "markdown_segments.h"

using Kind = MarkdownSegment::Kind;

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
    }

    void deepIndentIsNotAFence()
    {
        const auto segments = splitMarkdown("    ```\n    code");
        QCOMPARE(segments.size(), 1);
        QCOMPARE(segments[0].kind, Kind::Prose);
    }

    void qmlForm()
    {
        const QVariantList list = segmentsForQml(splitMarkdown("a\n```sh\nls\n```"));
        QCOMPARE(list.size(), 2);
        QCOMPARE(list[0].toMap()["code"].toBool(), false);
        QCOMPARE(list[1].toMap()["code"].toBool(), true);
        QCOMPARE(list[1].toMap()["language"].toString(), QStringLiteral("sh"));
        QCOMPARE(list[1].toMap()["text"].toString(), QStringLiteral("ls"));
    }
};

QTEST_GUILESS_MAIN(MarkdownTest)
#include "app_markdown_test.moc"
