#include "markdown_segments.h"

#include <QStringList>
#include <optional>

namespace {

struct Fence {
    QChar character;  // ` or ~
    qsizetype length = 0;
    QString info;
};

// A fence line: up to 3 spaces of indentation, then 3 or more backticks or tildes and an info
// string (which, after backticks, may not hold a backtick: "```ls``` lists" is prose).
std::optional<Fence> fenceOf(const QString& line)
{
    qsizetype indent = 0;
    while (indent < line.size() && line.at(indent) == QLatin1Char(' '))
        ++indent;
    if (indent > 3 || indent == line.size())
        return std::nullopt;
    const QChar c = line.at(indent);
    if (c != QLatin1Char('`') && c != QLatin1Char('~'))
        return std::nullopt;
    qsizetype end = indent;
    while (end < line.size() && line.at(end) == c)
        ++end;
    Fence fence{c, end - indent, line.mid(end).trimmed()};
    if (fence.length < 3 || (c == QLatin1Char('`') && fence.info.contains(c)))
        return std::nullopt;
    return fence;
}

void appendSegment(QVector<MarkdownSegment>& out, MarkdownSegment::Kind kind, const QStringList& lines,
                   const QString& language, const QString& openFence = {})
{
    QString text = lines.join(QLatin1Char('\n'));
    if (kind == MarkdownSegment::Kind::Prose && text.trimmed().isEmpty())
        return;
    out.push_back({kind, text, language, openFence});
}

} // namespace

QVector<MarkdownSegment> splitMarkdown(const QString& text)
{
    QVector<MarkdownSegment> out;
    QStringList current;
    std::optional<Fence> open;  // the fence of the code block the line is in
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        const std::optional<Fence> fence = fenceOf(line);
        if (!open && fence) {
            appendSegment(out, MarkdownSegment::Kind::Prose, current, {});
            current.clear();
            open = fence;
        } else if (open && fence && fence->character == open->character && fence->length >= open->length &&
                   fence->info.isEmpty()) {
            appendSegment(out, MarkdownSegment::Kind::Code, current, open->info);
            current.clear();
            open.reset();
        } else {
            current.push_back(line);
        }
    }
    if (open)
        appendSegment(out, MarkdownSegment::Kind::Code, current, open->info, QString(open->length, open->character));
    else
        appendSegment(out, MarkdownSegment::Kind::Prose, current, {});
    return out;
}
