#include "markdown_segments.h"

#include <QStringList>

namespace {

// A fence line: optional indentation (up to 3 spaces, as CommonMark allows) then ``` or ~~~.
bool isFence(const QString& line, QString* marker, QString* info)
{
    int indent = 0;
    while (indent < line.size() && line.at(indent) == QLatin1Char(' '))
        ++indent;
    if (indent > 3)
        return false;
    const QString rest = line.mid(indent).trimmed();
    for (const QString& candidate : {QStringLiteral("```"), QStringLiteral("~~~")}) {
        if (rest.startsWith(candidate)) {
            *marker = candidate;
            *info = rest.mid(candidate.size()).trimmed();
            return true;
        }
    }
    return false;
}

void appendSegment(QVector<MarkdownSegment>& out, MarkdownSegment::Kind kind, const QStringList& lines,
                   const QString& language)
{
    QString text = lines.join(QLatin1Char('\n'));
    if (kind == MarkdownSegment::Kind::Prose && text.trimmed().isEmpty())
        return;
    out.push_back({kind, text, language});
}

} // namespace

QVector<MarkdownSegment> splitMarkdown(const QString& text)
{
    QVector<MarkdownSegment> out;
    QStringList current;
    QString openMarker;  // empty: outside a code block
    QString language;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        QString marker, info;
        if (openMarker.isEmpty() && isFence(line, &marker, &info)) {
            appendSegment(out, MarkdownSegment::Kind::Prose, current, {});
            current.clear();
            openMarker = marker;
            language = info;
        } else if (!openMarker.isEmpty() && isFence(line, &marker, &info) && marker == openMarker && info.isEmpty()) {
            appendSegment(out, MarkdownSegment::Kind::Code, current, language);
            current.clear();
            openMarker.clear();
            language.clear();
        } else {
            current.push_back(line);
        }
    }
    appendSegment(out, openMarker.isEmpty() ? MarkdownSegment::Kind::Prose : MarkdownSegment::Kind::Code, current,
                  language);
    return out;
}
