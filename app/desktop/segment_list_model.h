#pragma once
// One message's segments (markdown_segments.h) as the list model the chat view repeats over.
// New text changes only the segments that differ: while a reply streams in, the segments above
// the growing one keep their delegates, layout and selection, and their prose is not rendered
// again, so each streamed piece costs the last segment, not the whole reply.
#include <QAbstractListModel>
#include <QVector>

#include "markdown_segments.h"

class SegmentListModel : public QAbstractListModel {
    Q_OBJECT

public:
    enum Role {
        CodeRole = Qt::UserRole + 1,  // a fenced code block
        TextRole,                     // prose as written, or the code
        LanguageRole,                 // the fence's info string
        HtmlRole,                     // prose rendered safely (markdown_html.h); empty as typed
    };

    // `rendered`: prose is Markdown to render (a reply), else shown as typed (a user's message).
    explicit SegmentListModel(bool rendered, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    void setText(const QString& text);

private:
    struct Item {
        MarkdownSegment segment;
        QString html;
    };
    Item makeItem(const MarkdownSegment& segment) const;

    bool rendered_;
    QVector<Item> items_;
};
