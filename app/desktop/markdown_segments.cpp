#include "markdown_segments.h"

#include <QStringList>
#include <optional>

namespace {

// The inside of a quote line ("  > text" -> "text"), or nothing when the line is no quote.
std::optional<QString> quotedOf(const QString& line)
{
    qsizetype indent = 0;
    while (indent < line.size() && indent <= 3 && line.at(indent) == QLatin1Char(' '))
        ++indent;
    if (indent > 3 || indent == line.size() || line.at(indent) != QLatin1Char('>'))
        return std::nullopt;
    qsizetype start = indent + 1;
    if (start < line.size() && line.at(start) == QLatin1Char(' '))
        ++start;
    return line.mid(start);
}

void appendSegment(QVector<MarkdownSegment>& out, MarkdownSegment::Kind kind, const QStringList& lines,
                   const QString& language, const QString& openFence = {})
{
    QString text = lines.join(QLatin1Char('\n'));
    if (kind != MarkdownSegment::Kind::Code && text.trimmed().isEmpty())
        return;
    out.push_back({kind, text, language, openFence});
}

} // namespace

std::optional<MarkdownFence> markdownFenceOf(const QString& line)
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
    MarkdownFence fence{c, end - indent, line.mid(end).trimmed()};
    if (fence.length < 3 || (c == QLatin1Char('`') && fence.info.contains(c)))
        return std::nullopt;
    return fence;
}

QVector<MarkdownSegment> splitMarkdown(const QString& text, Quotes quotes)
{
    using Kind = MarkdownSegment::Kind;
    QVector<MarkdownSegment> out;
    QStringList current;
    Kind currentKind = Kind::Prose;  // of the lines in `current`, outside a code block
    std::optional<MarkdownFence> open;  // the fence of the code block the line is in
    const auto flush = [&](Kind next) {
        appendSegment(out, currentKind, current, {});
        current.clear();
        currentKind = next;
    };
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        const std::optional<MarkdownFence> fence = markdownFenceOf(line);
        const std::optional<QString> quoted = quotes == Quotes::Split ? quotedOf(line) : std::nullopt;
        if (!open && fence) {
            flush(Kind::Prose);
            open = fence;
        } else if (open && fence && fence->closes(*open)) {
            appendSegment(out, Kind::Code, current, open->info);
            current.clear();
            open.reset();
        } else if (!open && quoted) {
            if (currentKind != Kind::Quote)
                flush(Kind::Quote);
            current.push_back(*quoted);
        } else if (!open && currentKind == Kind::Quote &&
                   (line.trimmed().isEmpty() || current.last().trimmed().isEmpty())) {
            // A line that is no quote ends the quote, unless it continues the quote's paragraph.
            flush(Kind::Prose);
            current.push_back(line);
        } else {
            current.push_back(line);
        }
    }
    if (open)
        appendSegment(out, Kind::Code, current, open->info, QString(open->length, open->character));
    else
        flush(Kind::Prose);
    return out;
}
