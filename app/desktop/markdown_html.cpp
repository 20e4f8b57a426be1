#include "markdown_html.h"

#include <QRegularExpression>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFragment>
#include <QTextFrame>
#include <QTextTable>
#include <QVector>

namespace {

struct ImageAt {
    int position = 0;
    int length = 0;
    QString text;
};

// A single line break in prose stays a line break, as chat apps show it (Markdown itself joins
// such lines into one): every line that another line follows ends in a hard break. At the
// end of a heading, a list item or a table row that break has no effect; code blocks are
// segments of their own (markdown_segments.h) and never come here.
QString keepLineBreaks(const QString& markdown)
{
    QStringList lines = markdown.split(QLatin1Char('\n'));
    for (qsizetype i = 0; i + 1 < lines.size(); ++i)
        if (!lines[i].trimmed().isEmpty() && !lines[i + 1].trimmed().isEmpty() && !lines[i].endsWith(QLatin1String("  ")))
            lines[i] += QStringLiteral("  ");
    return lines.join(QLatin1Char('\n'));
}

// `text` with every ASCII punctuation character escaped: Markdown then shows it as written.
QString escapedForMarkdown(QStringView text)
{
    QString out;
    out.reserve(text.size() * 2);
    for (const QChar c : text) {
        if (c.unicode() < 128 && (c.isPunct() || c.isSymbol()))
            out += QLatin1Char('\\');
        out += c;
    }
    return out;
}

// Where the math that opens at `open` (a $ or $$) closes, the index after its last dollar;
// -1 when it does not. Inline math stays on its line; displayed math may span lines but not
// a blank one.
qsizetype mathEnd(const QString& text, qsizetype open)
{
    const bool display = text.mid(open, 2) == QLatin1String("$$");
    const qsizetype start = open + (display ? 2 : 1);
    if (start >= text.size() || (!display && text.at(start).isSpace()))
        return -1;
    for (qsizetype i = start; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (c == QLatin1Char('\\')) {
            ++i;  // an escaped character, a dollar too, is part of the math
            continue;
        }
        if (c == QLatin1Char('\n') && (!display || text.mid(i + 1).trimmed().isEmpty() ||
                                        text.at(i + 1) == QLatin1Char('\n')))
            return -1;
        if (c != QLatin1Char('$'))
            continue;
        if (display) {
            if (text.mid(i, 2) == QLatin1String("$$") && i > start)
                return i + 2;
            continue;
        }
        const bool closes = !text.at(i - 1).isSpace() && (i + 1 == text.size() || !text.at(i + 1).isDigit());
        if (closes)
            return i + 1;
    }
    return -1;
}

// Math written between dollars, escaped so Markdown leaves it as written. Code spans are
// skipped: what is in them is shown as written anyway.
QString keepMathAsWritten(const QString& markdown)
{
    QString out;
    out.reserve(markdown.size());
    for (qsizetype i = 0; i < markdown.size();) {
        const QChar c = markdown.at(i);
        if (c == QLatin1Char('\\') && i + 1 < markdown.size()) {
            out += markdown.mid(i, 2);
            i += 2;
        } else if (c == QLatin1Char('`')) {
            qsizetype run = i;
            while (run < markdown.size() && markdown.at(run) == c)
                ++run;
            const QString ticks = markdown.mid(i, run - i);
            qsizetype close = markdown.indexOf(ticks, run);
            while (close >= 0 && close + ticks.size() < markdown.size() && markdown.at(close + ticks.size()) == c)
                close = markdown.indexOf(ticks, close + ticks.size() + 1);  // a longer run closes nothing
            const qsizetype end = close >= 0 ? close + ticks.size() : run;
            out += markdown.mid(i, end - i);
            i = end;
        } else if (c == QLatin1Char('$') && mathEnd(markdown, i) > 0) {
            const qsizetype end = mathEnd(markdown, i);
            out += escapedForMarkdown(QStringView(markdown).mid(i, end - i));
            i = end;
        } else {
            out += c;
            ++i;
        }
    }
    return out;
}

} // namespace

QString markdownToSafeHtml(const QString& markdown)
{
    QTextDocument document;
    document.setMarkdown(keepLineBreaks(keepMathAsWritten(markdown)), QTextDocument::MarkdownFeatures(QTextDocument::MarkdownDialectGitHub |
                                                                   QTextDocument::MarkdownNoHTML));
    QVector<ImageAt> images;
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            if (!fragment.charFormat().isImageFormat())
                continue;
            const QTextImageFormat image = fragment.charFormat().toImageFormat();
            const QString alt = image.property(QTextFormat::ImageAltText).toString();
            images.push_back({fragment.position(), fragment.length(), QStringLiteral("[%1: %2]").arg(alt, image.name())});
        }
    }
    // Tables get a light grid and room in their cells, as chat apps draw them (Qt's importer
    // draws none). The grid is the text colour at low alpha: readable in a light or dark theme.
    for (QTextFrame* frame : document.rootFrame()->childFrames()) {
        auto* table = qobject_cast<QTextTable*>(frame);
        if (!table)
            continue;
        QTextTableFormat format = table->format();
        format.setBorder(1);
        format.setBorderStyle(QTextFrameFormat::BorderStyle_Solid);
        format.setBorderBrush(QColor(128, 128, 128, 110));
        format.setBorderCollapse(true);
        format.setCellPadding(4);
        format.setCellSpacing(0);
        table->setFormat(format);
    }
    // From the end, so earlier positions stay valid.
    for (auto it = images.crbegin(); it != images.crend(); ++it) {
        QTextCursor cursor(&document);
        cursor.setPosition(it->position);
        cursor.setPosition(it->position + it->length, QTextCursor::KeepAnchor);
        cursor.insertText(it->text, QTextCharFormat());
    }
    // toHtml() writes the application's font into <body>; the view's own font is meant.
    static const QRegularExpression bodyStyle(QStringLiteral("<body style=\"[^\"]*\">"));
    return document.toHtml().replace(bodyStyle, QStringLiteral("<body>"));
}
