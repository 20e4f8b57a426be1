#pragma once
// The conversations in the sidebar: the current one, search, rename, delete with undo and
// export. Opens on the conversation used last, so the app reopens where the user left off.
#include <QAbstractListModel>
#include <QUrl>
#include <QVector>

#include "chat_store.h"

class ConversationListModel : public QAbstractListModel {
    Q_OBJECT
    Q_PROPERTY(qint64 currentId READ currentId WRITE setCurrentId NOTIFY currentIdChanged)
    Q_PROPERTY(QString currentTitle READ currentTitle NOTIFY currentTitleChanged)
    Q_PROPERTY(QString searchText READ searchText WRITE setSearchText NOTIFY searchTextChanged)
    Q_PROPERTY(bool canUndoRemove READ canUndoRemove NOTIFY undoChanged)
    Q_PROPERTY(QString undoText READ undoText NOTIFY undoChanged)
    Q_PROPERTY(int count READ count NOTIFY countChanged)

public:
    enum Role { IdRole = Qt::UserRole + 1, TitleRole, UpdatedRole, CurrentRole };

    explicit ConversationListModel(ChatStore& store, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    qint64 currentId() const { return currentId_; }
    void setCurrentId(qint64 id);
    QString currentTitle() const;
    QString searchText() const { return searchText_; }
    void setSearchText(const QString& text);
    bool canUndoRemove() const { return removedId_ != 0; }
    QString undoText() const;
    int count() const { return rows_.size(); }
    qint64 idAt(int row) const { return rows_.at(row).id; }

    // Makes a fresh conversation current; the current one is reused while it is still empty.
    Q_INVOKABLE qint64 createConversation();
    Q_INVOKABLE void rename(qint64 id, const QString& title);
    // Hides the conversation until undoRemove() or the next remove(), which deletes it for good.
    Q_INVOKABLE void remove(qint64 id);
    Q_INVOKABLE void undoRemove();
    // Makes the conversation `step` rows below (above, when negative) the current one in the
    // list as shown current; nothing past either end, or when the current one is not listed.
    Q_INVOKABLE void selectNeighbour(int step);
    // format: "markdown" or "json". `file` is a file:// URL or an absolute path (what a file
    // dialog gives for a name typed into it). Returns an error for the user, empty on success.
    Q_INVOKABLE QString exportConversation(qint64 id, const QUrl& file, const QString& format) const;
    // Reads a Markdown (.md) or JSON export back as a new conversation and shows it. Returns
    // an error for the user (the file is not an export, or cannot be read), empty on success.
    Q_INVOKABLE QString importConversation(const QUrl& file);
    // Where an export is offered first: the documents folder, the conversation's title as the name.
    Q_INVOKABLE QUrl suggestedExportFile(qint64 id, const QString& format) const;
    // The file on this computer that `file` names; empty when it names none (a web address).
    Q_INVOKABLE QString localPath(const QUrl& file) const;
    // Whether exporting to `file` would replace a file that is there, so the user is asked first.
    Q_INVOKABLE bool fileExists(const QUrl& file) const;

    // Titles an untitled conversation after the start of its first message (call refresh()).
    void nameAfterFirstMessage(qint64 id, const QString& message);
    // Re-reads the list, e.g. after a message moved a conversation to the top.
    void refresh();

signals:
    void currentIdChanged();
    void currentTitleChanged();
    void searchTextChanged();
    void undoChanged();
    void countChanged();

private:
    void updateCurrentTitle();

    ChatStore& store_;
    QVector<StoredConversation> rows_;
    qint64 currentId_ = 0;
    QString currentTitle_;
    QString searchText_;
    qint64 removedId_ = 0;
    QString removedTitle_;
};
