#include "markdown_html.h"

#include <QRegularExpression>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFragment>
#include <QVector>

namespace {

struct ImageAt {
    int position = 0;
    int length = 0;
    QString text;
};

} // namespace

QString markdownToSafeHtml(const QString& markdown)
{
    QTextDocument document;
    document.setMarkdown(markdown, QTextDocument::MarkdownFeatures(QTextDocument::MarkdownDialectGitHub |
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
