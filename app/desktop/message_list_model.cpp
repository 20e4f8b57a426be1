#include "message_list_model.h"

#include <QLocale>

#include "code_highlighter.h"
#include "segment_list_model.h"

using pyramid::ChatRole;
using pyramid::FinishReason;

namespace {

QString finishNote(const StoredMessage& m)
{
    switch (m.finish) {
    case FinishReason::Cancelled: return MessageListModel::tr("Stopped");
    case FinishReason::MaxTokens: return MessageListModel::tr("Reached the reply length limit");
    case FinishReason::ContextFull: return MessageListModel::tr("Cut off: the context window is full");
    case FinishReason::Error: return MessageListModel::tr("Interrupted by an error");
    case FinishReason::EndOfSequence: break;
    }
    return {};
}

QString statsText(const StoredMessage& m)
{
    if (m.role != ChatRole::Assistant || m.stats.generatedTokens == 0)
        return {};
    const QLocale locale;
    const QString text =
        MessageListModel::tr("%n token(s) · %1 tokens/s · first token %2 ms", nullptr, m.stats.generatedTokens)
            .arg(locale.toString(m.stats.tokensPerSecond, 'f', 1), locale.toString(m.stats.timeToFirstTokenMs, 'f', 0));
    // Whether this turn read only the new message (extend) or the whole conversation again.
    return m.stats.reusedCache ? MessageListModel::tr("%1 · cache kept").arg(text) : text;
}

} // namespace

MessageListModel::MessageListModel(QObject* parent)
    : QAbstractListModel(parent), highlighter_(std::make_unique<CodeHighlighter>())
{
}

// The segment models are children, deleted after the highlighter they point to: none is used then.
MessageListModel::~MessageListModel() = default;

MessageListModel::Row MessageListModel::makeRow(const StoredMessage& message)
{
    auto* segments = new SegmentListModel(message.role == ChatRole::Assistant, highlighter_.get(), this);
    segments->setText(message.text);
    return {message, segments};
}

void MessageListModel::releaseRows(qsizetype from)
{
    // Later: the view lets go of the removed rows' delegates only after this returns.
    for (qsizetype row = from; row < rows_.size(); ++row)
        rows_[row].segments->deleteLater();
}

int MessageListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : rows_.size(); }

QVariant MessageListModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rows_.size())
        return {};
    const Row& row = rows_.at(index.row());
    const StoredMessage& m = row.message;
    switch (role) {
    case IdRole: return m.id;
    case RoleNameRole: return roleName(m.role);
    case Qt::DisplayRole:
    case TextRole: return m.text;
    case SegmentsRole: return QVariant::fromValue<QObject*>(row.segments);
    case StreamingRole: return index.row() == streamingRow_;
    case StoppedRole: return m.stopped();
    case FinishNoteRole: return index.row() == streamingRow_ ? QString() : finishNote(m);
    case StatsTextRole: return statsText(m);
    case NoticeRole: return m.notice;
    case VersionCountRole: return m.versionCount;
    case VersionIndexRole: return m.versionIndex;
    default: return {};
    }
}

QHash<int, QByteArray> MessageListModel::roleNames() const
{
    return {{IdRole, "messageId"},       {RoleNameRole, "role"},         {TextRole, "text"},
            {SegmentsRole, "segments"},  {StreamingRole, "streaming"},   {StoppedRole, "stopped"},
            {FinishNoteRole, "finishNote"}, {StatsTextRole, "statsText"}, {NoticeRole, "notice"},
            {VersionCountRole, "versionCount"}, {VersionIndexRole, "versionIndex"}};
}

int MessageListModel::lastRow(ChatRole role) const
{
    for (int row = rows_.size() - 1; row >= 0; --row) {
        if (rows_.at(row).message.role == role)
            return row;
    }
    return -1;
}

void MessageListModel::setConversation(qint64 conversationId, const QVector<StoredMessage>& messages)
{
    const bool wasStreaming = streaming();
    beginResetModel();
    conversationId_ = conversationId;
    releaseRows(0);
    rows_.clear();
    for (const StoredMessage& m : messages)
        rows_.push_back(makeRow(m));
    streamingRow_ = -1;
    endResetModel();
    emit countChanged();
    if (wasStreaming)
        emit streamingChanged();
}

void MessageListModel::append(const StoredMessage& message)
{
    beginInsertRows({}, rows_.size(), rows_.size());
    rows_.push_back(makeRow(message));
    endInsertRows();
    emit countChanged();
}

void MessageListModel::replaceText(int row, const QString& text)
{
    Row& r = rows_[row];
    r.message.text = text;
    r.segments->setText(text);
    const QModelIndex i = index(row);
    emit dataChanged(i, i, {TextRole, Qt::DisplayRole});
}

void MessageListModel::removeAt(int row)
{
    if (row < 0 || row >= rows_.size() || row == streamingRow_)
        return;
    beginRemoveRows({}, row, row);
    rows_[row].segments->deleteLater();  // later, as releaseRows does
    rows_.removeAt(row);
    if (streamingRow_ > row)
        --streamingRow_;
    endRemoveRows();
    emit countChanged();
}

void MessageListModel::removeFrom(int row)
{
    if (row < 0 || row >= rows_.size())
        return;
    const bool removesReply = streamingRow_ >= row;
    beginRemoveRows({}, row, rows_.size() - 1);
    releaseRows(row);
    rows_.resize(row);
    endRemoveRows();
    emit countChanged();
    if (removesReply) {
        streamingRow_ = -1;
        emit streamingChanged();
    }
}

void MessageListModel::beginReply()
{
    StoredMessage reply;
    reply.role = ChatRole::Assistant;
    append(reply);
    streamingRow_ = rows_.size() - 1;
    emit streamingChanged();
}

void MessageListModel::appendReplyText(const QString& piece)
{
    if (streamingRow_ >= 0)
        replaceText(streamingRow_, rows_.at(streamingRow_).message.text + piece);
}

void MessageListModel::finishReply(const StoredMessage& stored)
{
    if (streamingRow_ < 0)
        return;
    const int row = streamingRow_;
    rows_[row].message = stored;
    rows_[row].segments->setText(stored.text);
    streamingRow_ = -1;
    const QModelIndex i = index(row);
    emit dataChanged(i, i);
    emit streamingChanged();
}

void MessageListModel::discardReply()
{
    if (streamingRow_ >= 0)
        removeFrom(streamingRow_);
}
