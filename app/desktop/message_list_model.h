#pragma once
// The messages of the conversation on screen, plus the reply being streamed into it. The
// ChatController fills it; QML only reads it.
#include <QAbstractListModel>
#include <QVector>
#include <memory>

#include "stored_message.h"

class CodeHighlighter;
class SegmentListModel;

class MessageListModel : public QAbstractListModel {
    Q_OBJECT
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    Q_PROPERTY(bool streaming READ streaming NOTIFY streamingChanged)

public:
    enum Role {
        IdRole = Qt::UserRole + 1,
        RoleNameRole,    // "user" / "assistant"
        TextRole,
        SegmentsRole,    // a SegmentListModel
        StreamingRole,   // the reply still growing
        StoppedRole,     // the user stopped the reply
        FinishNoteRole,  // why a reply ended early, for the user; empty when it ended normally
        StatsTextRole,   // "42 tokens · 118 tokens/s · first token 35 ms · cache kept"
        NoticeRole,      // what the engine did to fit the conversation; empty when nothing
        VersionCountRole,  // a regenerated reply's versions (1: none earlier)
        VersionIndexRole,  // which of them is shown, 0-based
    };

    explicit MessageListModel(QObject* parent = nullptr);
    ~MessageListModel() override;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    int count() const { return rows_.size(); }
    bool streaming() const { return streamingRow_ >= 0; }
    qint64 conversationId() const { return conversationId_; }
    const StoredMessage& at(int row) const { return rows_.at(row).message; }
    int lastRow(pyramid::ChatRole role) const;  // -1 if none

    void setConversation(qint64 conversationId, const QVector<StoredMessage>& messages);
    void append(const StoredMessage& message);
    void replaceText(int row, const QString& text);
    void removeFrom(int row);  // drops rows [row, end)
    void removeAt(int row);    // drops one row; not the streaming reply

    // Streaming: an assistant row that grows, then becomes the stored reply (or goes away).
    void beginReply();
    void appendReplyText(const QString& piece);
    void finishReply(const StoredMessage& stored);
    void discardReply();

signals:
    void countChanged();
    void streamingChanged();

private:
    struct Row {
        StoredMessage message;
        SegmentListModel* segments = nullptr;  // a child of this model, let go with its row
    };
    Row makeRow(const StoredMessage& message);
    void releaseRows(qsizetype from);  // drops the rows' segment models from `from` on

    std::unique_ptr<CodeHighlighter> highlighter_;  // shared by the rows' segment models
    QVector<Row> rows_;
    qint64 conversationId_ = 0;
    int streamingRow_ = -1;
};
