#include "segment_list_model.h"

#include <algorithm>

#include "code_highlighter.h"
#include "markdown_html.h"

SegmentListModel::SegmentListModel(bool rendered, CodeHighlighter* highlighter, QObject* parent)
    : QAbstractListModel(parent), rendered_(rendered), highlighter_(highlighter)
{
    renderLater_.setSingleShot(true);
    connect(&renderLater_, &QTimer::timeout, this, [this] { renderStale(items_.size() - 1); });
}

int SegmentListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : items_.size(); }

QVariant SegmentListModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= items_.size())
        return {};
    const Item& item = items_.at(index.row());
    switch (role) {
    case CodeRole: return item.segment.kind == MarkdownSegment::Kind::Code;
    case QuoteRole: return item.segment.kind == MarkdownSegment::Kind::Quote;
    case Qt::DisplayRole:
    case TextRole: return item.segment.text;
    case LanguageRole: return item.segment.language;
    case HtmlRole: return item.html;
    case CodeLightRole: return item.codeLight;
    case CodeDarkRole: return item.codeDark;
    default: return {};
    }
}

QHash<int, QByteArray> SegmentListModel::roleNames() const
{
    return {{CodeRole, "code"}, {QuoteRole, "quote"}, {TextRole, "text"}, {LanguageRole, "language"}, {HtmlRole, "html"},
            {CodeLightRole, "codeLight"}, {CodeDarkRole, "codeDark"}};
}

QString SegmentListModel::render(const QString& markdown)
{
    QElapsedTimer timer;
    timer.start();
    QString html = markdownToSafeHtml(markdown);
    renderNs_ = timer.nsecsElapsed();
    sinceRender_.start();
    ++renders_;
    return html;
}

SegmentListModel::Item SegmentListModel::makeItem(const MarkdownSegment& segment)
{
    if (segment.kind == MarkdownSegment::Kind::Code) {
        const CodeHighlighter::Html code = highlighter_ ? highlighter_->highlight(segment.text, segment.language)
                                                        : CodeHighlighter::Html{};
        return {segment, {}, code.light, code.dark};
    }
    return {segment, rendered_ ? render(segment.text) : QString(), {}, {}};
}

void SegmentListModel::renderStale(qsizetype row)
{
    if (row < 0 || row >= items_.size() || !items_.at(row).stale)
        return;
    items_[row].html = render(items_.at(row).segment.text);
    items_[row].stale = false;
    emit dataChanged(index(row), index(row), {HtmlRole});
}

void SegmentListModel::setText(const QString& text)
{
    const QVector<MarkdownSegment> next = splitMarkdown(text, rendered_ ? Quotes::Split : Quotes::AsProse);
    const qsizetype common = std::min(items_.size(), next.size());
    for (qsizetype i = 0; i < common; ++i) {
        const MarkdownSegment& old = items_.at(i).segment;
        if (old.kind == next[i].kind && old.text == next[i].text && old.language == next[i].language)
            continue;
        const bool growingProse = rendered_ && i == next.size() - 1 && old.kind == next[i].kind &&
                                  next[i].kind != MarkdownSegment::Kind::Code;
        const qint64 waitNs = kRenderSpacing * renderNs_ - (sinceRender_.isValid() ? sinceRender_.nsecsElapsed() : 0);
        if (growingProse && waitNs > 0) {
            items_[i].segment = next[i];
            items_[i].stale = true;
            if (!renderLater_.isActive())
                renderLater_.start(static_cast<int>(waitNs / 1000000) + 1);
        } else {
            items_[i] = makeItem(next[i]);
        }
        emit dataChanged(index(i), index(i));
    }
    if (next.size() > items_.size()) {
        beginInsertRows({}, items_.size(), next.size() - 1);
        for (qsizetype i = items_.size(); i < next.size(); ++i)
            items_.push_back(makeItem(next[i]));
        endInsertRows();
    } else if (next.size() < items_.size()) {
        beginRemoveRows({}, next.size(), items_.size() - 1);
        items_.resize(next.size());
        endRemoveRows();
    }
    // A segment that stopped growing shows its whole text now.
    for (qsizetype i = 0; i + 1 < items_.size(); ++i)
        renderStale(i);
}
