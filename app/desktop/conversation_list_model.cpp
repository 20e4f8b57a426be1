#include "conversation_list_model.h"

#include <algorithm>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>

#include "conversation_export.h"
#include "conversation_import.h"

ConversationListModel::ConversationListModel(ChatStore& store, QObject* parent)
    : QAbstractListModel(parent), store_(store)
{
    refresh();
    const qint64 last = store_.lastConversation();
    if (std::any_of(rows_.begin(), rows_.end(), [&](const StoredConversation& c) { return c.id == last; }))
        setCurrentId(last);
    else if (!rows_.isEmpty())
        setCurrentId(rows_.front().id);
    else
        createConversation();
}

int ConversationListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : rows_.size(); }

QVariant ConversationListModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rows_.size())
        return {};
    const StoredConversation& c = rows_.at(index.row());
    switch (role) {
    case IdRole: return c.id;
    case Qt::DisplayRole:
    case TitleRole: return conversationTitle(c);
    case UpdatedRole: {
        const QLocale locale;
        return c.updatedAt.date() == QDate::currentDate() ? locale.toString(c.updatedAt.time(), QLocale::ShortFormat)
                                                          : locale.toString(c.updatedAt.date(), QLocale::ShortFormat);
    }
    case CurrentRole: return c.id == currentId_;
    default: return {};
    }
}

QHash<int, QByteArray> ConversationListModel::roleNames() const
{
    return {{IdRole, "conversationId"}, {TitleRole, "title"}, {UpdatedRole, "updated"}, {CurrentRole, "current"}};
}

void ConversationListModel::refresh()
{
    const int before = rows_.size();
    beginResetModel();
    rows_ = store_.conversations(searchText_);
    endResetModel();
    if (rows_.size() != before)
        emit countChanged();
    updateCurrentTitle();
}

void ConversationListModel::updateCurrentTitle()
{
    const auto current = store_.conversation(currentId_);
    const QString title = current ? conversationTitle(*current) : QString();
    if (title != currentTitle_) {
        currentTitle_ = title;
        emit currentTitleChanged();
    }
}

void ConversationListModel::setCurrentId(qint64 id)
{
    if (id == currentId_)
        return;
    currentId_ = id;
    store_.setLastConversation(id);
    if (!rows_.isEmpty())
        emit dataChanged(index(0), index(rows_.size() - 1), {CurrentRole});
    updateCurrentTitle();
    emit currentIdChanged();
}

void ConversationListModel::selectNeighbour(int step)
{
    const auto current =
        std::find_if(rows_.cbegin(), rows_.cend(), [&](const auto& row) { return row.id == currentId_; });
    if (current == rows_.cend())
        return;
    const qsizetype next = (current - rows_.cbegin()) + step;
    if (next >= 0 && next < rows_.size())
        setCurrentId(rows_.at(next).id);
}

QString ConversationListModel::currentTitle() const { return currentTitle_; }

void ConversationListModel::setSearchText(const QString& text)
{
    if (text == searchText_)
        return;
    searchText_ = text;
    refresh();
    emit searchTextChanged();
}

QString ConversationListModel::undoText() const
{
    return removedId_ == 0 ? QString() : tr("Deleted “%1”").arg(removedTitle_);
}

qint64 ConversationListModel::createConversation()
{
    setSearchText({});
    // An empty conversation on screen is reused, unless it is the one just deleted (hidden).
    const bool currentVisible =
        std::any_of(rows_.cbegin(), rows_.cend(), [this](const StoredConversation& c) { return c.id == currentId_; });
    if (currentVisible && store_.messageCount(currentId_) == 0)
        return currentId_;
    const qint64 id = store_.createConversation();
    refresh();
    setCurrentId(id);
    return id;
}

void ConversationListModel::rename(qint64 id, const QString& title)
{
    const QString trimmed = title.simplified();
    if (trimmed.isEmpty())
        return;
    store_.renameConversation(id, trimmed);
    refresh();
}

void ConversationListModel::nameAfterFirstMessage(qint64 id, const QString& message)
{
    constexpr int kMaxTitle = 48;
    const auto conversation = store_.conversation(id);
    if (!conversation || !conversation->title.isEmpty())
        return;
    QString title = message.simplified();
    if (title.size() > kMaxTitle)
        title = title.left(kMaxTitle - 1).trimmed() + QChar(0x2026);  // ellipsis
    store_.renameConversation(id, title);
}

void ConversationListModel::remove(qint64 id)
{
    const auto conversation = store_.conversation(id);
    if (!conversation)
        return;
    store_.purgeDeleted();  // one level of undo: the previous removal becomes final
    store_.setDeleted(id, true);
    removedId_ = id;
    removedTitle_ = conversationTitle(*conversation);
    refresh();
    emit undoChanged();
    if (id == currentId_) {
        if (!rows_.isEmpty())
            setCurrentId(rows_.front().id);
        else
            createConversation();
    }
}

void ConversationListModel::undoRemove()
{
    if (removedId_ == 0)
        return;
    const qint64 id = removedId_;
    store_.setDeleted(id, false);
    removedId_ = 0;
    removedTitle_.clear();
    emit undoChanged();
    refresh();
    setCurrentId(id);
}

QString ConversationListModel::exportConversation(qint64 id, const QUrl& file, const QString& format) const
{
    const auto conversation = store_.conversation(id);
    if (!conversation)
        return tr("The conversation no longer exists.");
    const ConversationExport data{*conversation, store_.systemPrompt(id), store_.messages(id)};
    const QByteArray bytes = format == QLatin1String("json") ? conversationToJson(data)
                                                             : conversationToMarkdown(data).toUtf8();
    const QString path = localPath(file);
    if (path.isEmpty())
        return tr("Could not write %1: only files on this computer can be written.").arg(file.toString());
    // Written beside it and renamed over it: a failed export leaves an existing file as it was.
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit())
        return tr("Could not write %1: %2").arg(path, out.errorString());
    return {};
}

QString ConversationListModel::importConversation(const QUrl& file)
{
    const QString path = localPath(file);
    QFile in(path);
    if (path.isEmpty() || !in.open(QIODevice::ReadOnly))
        return tr("Could not read %1: %2").arg(path.isEmpty() ? file.toString() : path,
                                                 path.isEmpty() ? tr("only files on this computer can be read.")
                                                                : in.errorString());
    constexpr qint64 kMaxImport = 64 << 20;  // far beyond any conversation; a wrong file is not read whole
    if (in.size() > kMaxImport)
        return tr("Could not import %1: it is larger than 64 MB, far more than a conversation.").arg(path);
    const QByteArray bytes = in.readAll();
    const bool json = path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive);
    const ImportResult read = json ? conversationFromJson(bytes) : conversationFromMarkdown(QString::fromUtf8(bytes));
    if (const QString* problem = std::get_if<QString>(&read))
        return tr("Could not import %1: %2").arg(path, *problem);
    const ConversationExport& imported = std::get<ConversationExport>(read);
    const qint64 id = store_.createConversation(imported.conversation.title);
    if (id == 0)
        return tr("Could not import %1: the chat history could not be written.").arg(path);
    if (!imported.systemPrompt.isEmpty())
        store_.setSystemPrompt(id, imported.systemPrompt);
    for (const StoredMessage& message : imported.messages) {
        if (store_.addMessage(id, message) == 0) {
            // Not half a conversation: hidden, and gone at the next purge (purging now would also
            // take a deletion the user may still undo).
            store_.setDeleted(id, true);
            return tr("Could not import %1: the chat history could not be written.").arg(path);
        }
    }
    setSearchText({});
    refresh();
    setCurrentId(id);
    return {};
}

QString ConversationListModel::localPath(const QUrl& file) const
{
    if (file.isLocalFile())
        return file.toLocalFile();
    // Qt Quick's own file dialog gives a name typed into it as a URL without a scheme.
    if (file.scheme().isEmpty() && QDir::isAbsolutePath(file.path()))
        return QDir::cleanPath(file.path());
    return {};
}

bool ConversationListModel::fileExists(const QUrl& file) const
{
    const QString path = localPath(file);
    return !path.isEmpty() && QFileInfo::exists(path);
}

QUrl ConversationListModel::suggestedExportFile(qint64 id, const QString& format) const
{
    const auto conversation = store_.conversation(id);
    QString name = conversation ? conversationTitle(*conversation) : QString();
    // Characters no file system takes, or that start a hidden file, become spaces.
    static const QRegularExpression unsafe(QStringLiteral("[/\\\\:*?\"<>|\\x00-\\x1f]"));
    name = name.replace(unsafe, QStringLiteral(" ")).simplified();
    while (name.startsWith(QLatin1Char('.')))
        name.remove(0, 1);
    if (name.isEmpty())
        name = tr("conversation");
    QString folder = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    if (folder.isEmpty() || !QFileInfo(folder).isDir())
        folder = QDir::homePath();
    const QString suffix = format == QLatin1String("json") ? QStringLiteral(".json") : QStringLiteral(".md");
    return QUrl::fromLocalFile(QDir(folder).filePath(name + suffix));
}
