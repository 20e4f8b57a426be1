#pragma once
// Conversations, their messages and per-conversation settings in one SQLite file. WAL mode
// keeps finished messages safe when the app dies mid-reply. A damaged file, or one written by
// a newer version, is refused at opening and left as it is. Used from the UI thread only;
// each message lands on disk as soon as it is added, and a change of several rows is one
// transaction.
//
// Deleting is two-step so it can be undone: setDeleted() hides a conversation, purgeDeleted()
// removes the hidden ones for good.
#include <QDateTime>
#include <QString>
#include <QVariantList>
#include <QVector>
#include <functional>
#include <optional>

#include "stored_message.h"

class QSqlError;
class QSqlQuery;

struct StoredConversation {
    qint64 id = 0;
    QString title;  // empty until the first message names it
    QDateTime createdAt;
    QDateTime updatedAt;
};

class ChatStore {
public:
    // Opens or creates the database. Throws pyramid::Error naming the file when it cannot.
    explicit ChatStore(const QString& path);
    ~ChatStore();
    ChatStore(const ChatStore&) = delete;
    ChatStore& operator=(const ChatStore&) = delete;

    qint64 createConversation(const QString& title = {});
    void renameConversation(qint64 id, const QString& title);
    void setDeleted(qint64 id, bool deleted);
    void purgeDeleted();
    // Visible conversations, most recently updated first. A non-empty search matches titles
    // and message text, case-insensitively.
    QVector<StoredConversation> conversations(const QString& search = {}) const;
    std::optional<StoredConversation> conversation(qint64 id) const;  // also finds deleted ones

    QVector<StoredMessage> messages(qint64 conversationId) const;  // the shown ones, oldest first
    int messageCount(qint64 conversationId) const;
    // Stores the message at the end of the conversation and returns its id.
    qint64 addMessage(qint64 conversationId, const StoredMessage& message);
    // Deletes a shown message with its earlier versions and the branches that followed them;
    // false when the database refused (reported).
    bool deleteMessage(qint64 messageId);
    // Versions: regenerating a reply keeps the one replaced (and its own versions) as earlier
    // versions of the new one, hidden from messages(); so does editing a question, whose
    // earlier versions keep the branch of the conversation that followed each of them, hidden
    // with it. Showing another version shows its branch after it instead of the one shown,
    // all or nothing. versionIds: the shown one and its versions, oldest first.
    bool keepAsVersion(qint64 earlierId, qint64 laterId);
    QVector<qint64> versionIds(qint64 shownId) const;
    bool showVersion(qint64 shownId, qint64 wantedId);
    // An edited question: `edited` is stored after the conversation's messages as the newest
    // version of shown message `messageId`, and the messages after that one are kept as its
    // branch, hidden; all or nothing. Returns the new message's id (0: refused, reported).
    qint64 forkFrom(qint64 messageId, const StoredMessage& edited);

    // Per-conversation settings, kept as key/value rows so later settings need no new columns.
    QString systemPrompt(qint64 conversationId) const;  // empty if unset
    void setSystemPrompt(qint64 conversationId, const QString& text);
    // What was typed in the conversation but not sent (empty if nothing).
    QString draft(qint64 conversationId) const;
    void setDraft(qint64 conversationId, const QString& text);
    // The live panel's numbers after the conversation's last reply (stats_snapshot.h), so they
    // show again after a restart; empty if none was kept.
    QString lastReplyStats(qint64 conversationId) const;
    void setLastReplyStats(qint64 conversationId, const QString& snapshot);

    qint64 lastConversation() const;  // 0 when none was recorded
    void setLastConversation(qint64 id);

    // Called with the database's message whenever a statement fails (disk full, a file made
    // read-only, corruption), so the user hears of it; the failed call returns 0 or nothing.
    // The first failure from before a handler was set (at opening) is passed to it at once.
    void setFailureHandler(std::function<void(const QString& message)> handler);

private:
    void openTables();         // checks the file, then creates or updates the tables
    void addMissingColumns();  // brings a database from an earlier version up to date
    bool run(QSqlQuery& query) const;
    void reportReadError(const QSqlQuery& query) const;  // after the last next()
    void report(const QSqlError& error, const QString& statement) const;
    QSqlQuery prepare(const QString& sql, const QVariantList& values) const;
    void touch(qint64 conversationId);
    std::optional<qint64> conversationOf(qint64 messageId) const;
    QString setting(qint64 conversationId, const QString& key) const;
    void setSetting(qint64 conversationId, const QString& key, const QString& value);

    QString path_;
    QString connection_;  // one connection per store, so tests can open several
    std::function<void(const QString&)> onFailure_;
    mutable QString unreported_;  // the first failure while no handler was set
};
