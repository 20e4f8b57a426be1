#include "segment_list_model.h"

#include <algorithm>

#include "markdown_html.h"

SegmentListModel::SegmentListModel(bool rendered, QObject* parent) : QAbstractListModel(parent), rendered_(rendered) {}

int SegmentListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : items_.size(); }

QVariant SegmentListModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= items_.size())
        return {};
    const Item& item = items_.at(index.row());
    switch (role) {
    case CodeRole: return item.segment.kind == MarkdownSegment::Kind::Code;
    case Qt::DisplayRole:
    case TextRole: return item.segment.text;
    case LanguageRole: return item.segment.language;
    case HtmlRole: return item.html;
    default: return {};
    }
}

QHash<int, QByteArray> SegmentListModel::roleNames() const
{
    return {{CodeRole, "code"}, {TextRole, "text"}, {LanguageRole, "language"}, {HtmlRole, "html"}};
}

SegmentListModel::Item SegmentListModel::makeItem(const MarkdownSegment& segment) const
{
    const bool prose = segment.kind == MarkdownSegment::Kind::Prose;
    return {segment, rendered_ && prose ? markdownToSafeHtml(segment.text) : QString()};
}

void SegmentListModel::setText(const QString& text)
{
    const QVector<MarkdownSegment> next = splitMarkdown(text);
    const qsizetype common = std::min(items_.size(), next.size());
    for (qsizetype i = 0; i < common; ++i) {
        const MarkdownSegment& old = items_.at(i).segment;
        if (old.kind == next[i].kind && old.text == next[i].text && old.language == next[i].language)
            continue;
        items_[i] = makeItem(next[i]);
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
}
