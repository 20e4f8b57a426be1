#pragma once
// Splits a reply into Markdown prose and fenced code blocks, so the chat view can draw each
// code block on its own with a copy button. Fences follow CommonMark: three or more backticks
// or tildes, closed by a line of the same character at least as long; a fence still open (a
// reply mid-stream or cut off) runs to the end of the text.
#include <QString>
#include <QVector>

struct MarkdownSegment {
    enum class Kind { Prose, Code };
    Kind kind = Kind::Prose;
    QString text;      // prose as Markdown; code without its fences
    QString language;  // the fence's info string, code only
    QString openFence; // code only: the line that would close it, while the text has not (yet)
};

QVector<MarkdownSegment> splitMarkdown(const QString& text);
