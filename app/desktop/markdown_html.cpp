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

} // namespace

QString markdownToSafeHtml(const QString& markdown)
{
    QTextDocument document;
    document.setMarkdown(keepLineBreaks(markdown), QTextDocument::MarkdownFeatures(QTextDocument::MarkdownDialectGitHub |
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
