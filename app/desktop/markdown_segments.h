#pragma once
// Splits a reply into Markdown prose and fenced code blocks, so the chat view can draw each
// code block on its own with a copy button. A fence still open (a reply mid-stream) runs to
// the end of the text.
#include <QString>
#include <QVector>

struct MarkdownSegment {
    enum class Kind { Prose, Code };
    Kind kind = Kind::Prose;
    QString text;      // prose as Markdown; code without its fences
    QString language;  // the fence's info string, code only
};

QVector<MarkdownSegment> splitMarkdown(const QString& text);
