#pragma once
// Splits a reply into Markdown prose, fenced code blocks and block quotes, so the chat view can
// draw each code block on its own with a copy button and each quote with a bar beside it (Qt's
// rich text has no border on one side of a paragraph). Fences follow CommonMark: three or more
// backticks or tildes, closed by a line of the same character at least as long; a fence still
// open (a reply mid-stream or cut off) runs to the end of the text. A quote is a run of lines
// starting with ">" (after up to 3 spaces), with the lines that lazily continue its paragraph;
// its text is the Markdown inside, one level of ">" taken off, so a quote in a quote is drawn
// by the Markdown renderer, indented.
#include <QString>
#include <QVector>
#include <optional>

struct MarkdownSegment {
    enum class Kind { Prose, Code, Quote };
    Kind kind = Kind::Prose;
    QString text;      // prose and a quote's inside as Markdown; code without its fences
    QString language;  // the fence's info string, code only
    QString openFence; // code only: the line that would close it, while the text has not (yet)
};

// A fence line as CommonMark reads it: up to 3 spaces of indentation, then 3 or more backticks
// or tildes and an info string (which, after backticks, may not hold a backtick: "```ls```
// lists" is prose). The chat view, the Markdown export and its import all read fences so.
struct MarkdownFence {
    QChar character;  // ` or ~
    qsizetype length = 0;
    QString info;

    // Whether this fence line closes a code block `open` began: the same character, at least
    // as long, no info string.
    bool closes(const MarkdownFence& open) const
    {
        return character == open.character && length >= open.length && info.isEmpty();
    }
};
std::optional<MarkdownFence> markdownFenceOf(const QString& line);

// Quotes::AsProse leaves quotes in the prose around them (a user's message, shown as typed).
enum class Quotes { Split, AsProse };
QVector<MarkdownSegment> splitMarkdown(const QString& text, Quotes quotes = Quotes::Split);
