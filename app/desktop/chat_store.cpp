#include "chat_store.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>
#include <QUuid>
#include <utility>
#include <spdlog/spdlog.h>

#include "util/error.h"

namespace {

// Qt binds a null QString as SQL NULL; the text columns are NOT NULL, and empty is meant.
QString nonNull(const QString& text) { return text.isNull() ? QStringLiteral("") : text; }

qint64 nowMs() { return QDateTime::currentMSecsSinceEpoch(); }

QDateTime fromMs(const QVariant& value) { return QDateTime::fromMSecsSinceEpoch(value.toLongLong()); }

// LIKE pattern matching `text` anywhere, with LIKE's wildcards taken literally.
QString containsPattern(QString text)
{
    text.replace(QLatin1Char('\\'), QLatin1String("\\\\"));
    text.replace(QLatin1Char('%'), QLatin1String("\\%"));
    text.replace(QLatin1Char('_'), QLatin1String("\\_"));
    return QLatin1Char('%') + text + QLatin1Char('%');
}

const char* const kSchema[] = {
    "CREATE TABLE IF NOT EXISTS conversations ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL DEFAULT '',"
    " created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0)",
    "CREATE TABLE IF NOT EXISTS messages ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,"
    " role TEXT NOT NULL, text TEXT NOT NULL, finish TEXT NOT NULL DEFAULT 'end',"
    " prompt_tokens INTEGER NOT NULL DEFAULT 0, generated_tokens INTEGER NOT NULL DEFAULT 0,"
    " tokens_per_second REAL NOT NULL DEFAULT 0, ttft_ms REAL NOT NULL DEFAULT 0,"
    " created_at INTEGER NOT NULL, notice TEXT NOT NULL DEFAULT '', reused_cache INTEGER NOT NULL DEFAULT 0,"
    " version_of INTEGER NOT NULL DEFAULT 0, branch_of INTEGER NOT NULL DEFAULT 0)",
    "CREATE INDEX IF NOT EXISTS messages_by_conversation ON messages(conversation_id, id)",
    "CREATE TABLE IF NOT EXISTS conversation_settings ("
    " conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,"
    " key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (conversation_id, key))",
    "CREATE TABLE IF NOT EXISTS app_state (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
};

// PRAGMA user_version of the tables below. 0 is a database from before versions were kept,
// which addMissingColumns brings up to date; a higher one than this was written by a newer
// PyramidChat and is not touched.
// Version 2 added earlier versions of replies (version_of), which version 1 would show as
// messages of their own; version 3 the branches after an edited question's earlier versions
// (branch_of), which version 2 would show in the conversation.
constexpr int kSchemaVersion = 3;

// Message columns added after the first release: a database written by it gains them.
const struct {
    const char* name;
    const char* definition;
} kAddedMessageColumns[] = {
    {"notice", "TEXT NOT NULL DEFAULT ''"},
    {"reused_cache", "INTEGER NOT NULL DEFAULT 0"},
    {"version_of", "INTEGER NOT NULL DEFAULT 0"},
    {"branch_of", "INTEGER NOT NULL DEFAULT 0"},
};

// Hides the branch after a shown message (binds its id three times): the shown messages after
// it and their earlier versions get branch_of = its id. A shown line's ids grow along it, as
// each message added (a reply, a regenerated reply, an edited question) takes the next id.
const char* const kHideBranchAfter =
    "WITH branch(id) AS (SELECT id FROM messages WHERE conversation_id ="
    " (SELECT conversation_id FROM messages WHERE id = ?) AND version_of = 0 AND branch_of = 0 AND id > ?)"
    " UPDATE messages SET branch_of = ? WHERE branch_of = 0 AND (id IN branch OR version_of IN branch)";

} // namespace

ChatStore::ChatStore(const QString& path)
    : path_(path), connection_(QStringLiteral("chatstore-") + QUuid::createUuid().toString(QUuid::WithoutBraces))
{
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connection_);
    db.setDatabaseName(path);
    try {
        if (!db.open())
            throw pyramid::Error("cannot open chat database " + path.toStdString() + ": " +
                                 db.lastError().text().toStdString());
        openTables();
    } catch (const pyramid::Error&) {
        db.close();
        db = QSqlDatabase();
        QSqlDatabase::removeDatabase(connection_);
        throw;
    }
    // Conversations deleted in an earlier session can no longer be undone.
    purgeDeleted();
}

void ChatStore::openTables()
{
    const std::string file = path_.toStdString();
    QSqlQuery query(QSqlDatabase::database(connection_, false));
    // A damaged file is found here, before the history shows only part of itself.
    if (!query.exec(QStringLiteral("PRAGMA quick_check")) || !query.next())
        throw pyramid::Error("chat database " + file + " cannot be read: " + query.lastError().text().toStdString());
    if (const QString verdict = query.value(0).toString(); verdict != QLatin1String("ok"))
        throw pyramid::Error("chat database " + file + " is damaged: " + verdict.toStdString());
    if (!query.exec(QStringLiteral("PRAGMA user_version")) || !query.next())
        throw pyramid::Error("chat database " + file + ": " + query.lastError().text().toStdString());
    const int version = query.value(0).toInt();
    if (version > kSchemaVersion)
        throw pyramid::Error("chat database " + file + " was written by a newer PyramidChat (database version " +
                             std::to_string(version) + "; this one reads up to " + std::to_string(kSchemaVersion) +
                             "): update PyramidChat to open it");

    // WAL: readers never block the writer and a crash never corrupts finished writes.
    if (!query.exec(QStringLiteral("PRAGMA journal_mode=WAL")) || !query.next() ||
        query.value(0).toString().compare(QLatin1String("wal"), Qt::CaseInsensitive) != 0)
        spdlog::warn("chat database {}: WAL mode unavailable, using the default journal", file);
    query.exec(QStringLiteral("PRAGMA foreign_keys=ON"));
    for (const char* statement : kSchema) {
        if (!query.exec(QString::fromLatin1(statement)))
            throw pyramid::Error("cannot create the tables of chat database " + file + ": " +
                                 query.lastError().text().toStdString());
    }
    addMissingColumns();
    // Written only when it changes: a file that cannot be written (read-only, disk full) still
    // opens, and its history shows; writes then report their failure as they happen.
    if (version < kSchemaVersion && !query.exec(QStringLiteral("PRAGMA user_version = %1").arg(kSchemaVersion)))
        throw pyramid::Error("chat database " + file + ": " + query.lastError().text().toStdString());
}

void ChatStore::addMissingColumns()
{
    QSqlQuery query(QSqlDatabase::database(connection_, false));
    QStringList present;
    if (query.exec(QStringLiteral("PRAGMA table_info(messages)"))) {
        while (query.next())
            present.push_back(query.value(1).toString());
    }
    for (const auto& column : kAddedMessageColumns) {
        const QString name = QString::fromLatin1(column.name);
        if (present.contains(name))
            continue;
        if (!query.exec(QStringLiteral("ALTER TABLE messages ADD COLUMN %1 %2").arg(name, QLatin1String(column.definition))))
            throw pyramid::Error("cannot add column " + name.toStdString() + " to chat database " + path_.toStdString() +
                                 ": " + query.lastError().text().toStdString());
    }
}

ChatStore::~ChatStore()
{
    {
        QSqlDatabase db = QSqlDatabase::database(connection_, false);
        db.close();
    }
    QSqlDatabase::removeDatabase(connection_);
}

QSqlQuery ChatStore::prepare(const QString& sql, const QVariantList& values) const
{
    QSqlQuery query(QSqlDatabase::database(connection_, false));
    query.prepare(sql);
    for (const QVariant& value : values)
        query.addBindValue(value);
    return query;
}

bool ChatStore::run(QSqlQuery& query) const
{
    if (query.exec())
        return true;
    report(query.lastError(), query.lastQuery());
    return false;
}

void ChatStore::reportReadError(const QSqlQuery& query) const
{
    if (query.lastError().isValid())
        report(query.lastError(), query.lastQuery());
}

void ChatStore::report(const QSqlError& error, const QString& statement) const
{
    spdlog::error("chat database {}: {} ({})", path_.toStdString(), error.text().toStdString(), statement.toStdString());
    const QString message = QStringLiteral("%1: %2").arg(path_, error.text());
    if (onFailure_)
        onFailure_(message);
    else if (unreported_.isEmpty())
        unreported_ = message;
}

void ChatStore::setFailureHandler(std::function<void(const QString& message)> handler)
{
    onFailure_ = std::move(handler);
    if (onFailure_ && !unreported_.isEmpty())
        onFailure_(std::exchange(unreported_, QString()));
}

qint64 ChatStore::createConversation(const QString& title)
{
    const qint64 now = nowMs();
    QSqlQuery query = prepare(QStringLiteral("INSERT INTO conversations (title, created_at, updated_at) VALUES (?, ?, ?)"),
                              {nonNull(title), now, now});
    return run(query) ? query.lastInsertId().toLongLong() : 0;
}

void ChatStore::renameConversation(qint64 id, const QString& title)
{
    QSqlQuery query = prepare(QStringLiteral("UPDATE conversations SET title = ? WHERE id = ?"), {nonNull(title), id});
    run(query);
}

void ChatStore::setDeleted(qint64 id, bool deleted)
{
    QSqlQuery query = prepare(QStringLiteral("UPDATE conversations SET deleted = ? WHERE id = ?"), {deleted ? 1 : 0, id});
    run(query);
}

void ChatStore::purgeDeleted()
{
    QSqlQuery query = prepare(QStringLiteral("DELETE FROM conversations WHERE deleted = 1"), {});
    run(query);
}

QVector<StoredConversation> ChatStore::conversations(const QString& search) const
{
    QSqlQuery query = search.isEmpty()
        ? prepare(QStringLiteral("SELECT id, title, created_at, updated_at FROM conversations WHERE deleted = 0"
                                 " ORDER BY updated_at DESC, id DESC"),
                  {})
        : prepare(QStringLiteral("SELECT id, title, created_at, updated_at FROM conversations WHERE deleted = 0"
                                 " AND (title LIKE ? ESCAPE '\\' OR id IN (SELECT conversation_id FROM messages"
                                 " WHERE text LIKE ? ESCAPE '\\')) ORDER BY updated_at DESC, id DESC"),
                  {containsPattern(search), containsPattern(search)});
    QVector<StoredConversation> out;
    if (!run(query))
        return out;
    while (query.next())
        out.push_back({query.value(0).toLongLong(), query.value(1).toString(), fromMs(query.value(2)),
                       fromMs(query.value(3))});
    reportReadError(query);
    return out;
}

std::optional<StoredConversation> ChatStore::conversation(qint64 id) const
{
    QSqlQuery query = prepare(QStringLiteral("SELECT id, title, created_at, updated_at FROM conversations WHERE id = ?"), {id});
    if (!run(query) || !query.next())
        return std::nullopt;
    return StoredConversation{query.value(0).toLongLong(), query.value(1).toString(), fromMs(query.value(2)),
                              fromMs(query.value(3))};
}

QVector<StoredMessage> ChatStore::messages(qint64 conversationId) const
{
    // The shown messages, each with how many earlier versions it has and how many of them are
    // older than it (the one shown need not be the newest).
    QSqlQuery query = prepare(QStringLiteral("SELECT id, role, text, finish, prompt_tokens, generated_tokens,"
                                             " tokens_per_second, ttft_ms, created_at, notice, reused_cache,"
                                             " (SELECT COUNT(*) FROM messages v WHERE v.version_of = m.id),"
                                             " (SELECT COUNT(*) FROM messages v WHERE v.version_of = m.id AND v.id < m.id)"
                                             " FROM messages m WHERE conversation_id = ? AND version_of = 0 AND branch_of = 0 ORDER BY id"),
                              {conversationId});
    QVector<StoredMessage> out;
    if (!run(query))
        return out;
    while (query.next()) {
        StoredMessage m;
        m.id = query.value(0).toLongLong();
        m.role = roleFromName(query.value(1).toString());
        m.text = query.value(2).toString();
        m.finish = finishReasonFromName(query.value(3).toString());
        m.stats.promptTokens = query.value(4).toInt();
        m.stats.generatedTokens = query.value(5).toInt();
        m.stats.tokensPerSecond = query.value(6).toDouble();
        m.stats.timeToFirstTokenMs = query.value(7).toDouble();
        m.createdAt = fromMs(query.value(8));
        m.notice = query.value(9).toString();
        m.stats.reusedCache = query.value(10).toBool();
        m.versionCount = 1 + query.value(11).toInt();
        m.versionIndex = query.value(12).toInt();
        out.push_back(m);
    }
    reportReadError(query);
    return out;
}

int ChatStore::messageCount(qint64 conversationId) const
{
    QSqlQuery query = prepare(QStringLiteral("SELECT COUNT(*) FROM messages WHERE conversation_id = ? AND version_of = 0 AND branch_of = 0"),
                              {conversationId});
    return run(query) && query.next() ? query.value(0).toInt() : 0;
}

qint64 ChatStore::addMessage(qint64 conversationId, const StoredMessage& m)
{
    const qint64 created = m.createdAt.isValid() ? m.createdAt.toMSecsSinceEpoch() : nowMs();
    QSqlQuery query = prepare(QStringLiteral("INSERT INTO messages (conversation_id, role, text, finish, prompt_tokens,"
                                             " generated_tokens, tokens_per_second, ttft_ms, created_at, notice, reused_cache)"
                                             " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
                              {conversationId, roleName(m.role), nonNull(m.text), finishReasonName(m.finish),
                               m.stats.promptTokens, m.stats.generatedTokens, m.stats.tokensPerSecond,
                               m.stats.timeToFirstTokenMs, created, nonNull(m.notice), m.stats.reusedCache ? 1 : 0});
    if (!run(query))
        return 0;
    touch(conversationId);
    return query.lastInsertId().toLongLong();
}

qint64 ChatStore::forkFrom(qint64 messageId, const StoredMessage& edited)
{
    const std::optional<qint64> conversation = conversationOf(messageId);
    if (!conversation)
        return 0;
    QSqlDatabase db = QSqlDatabase::database(connection_, false);
    if (!db.transaction()) {
        report(db.lastError(), QStringLiteral("BEGIN"));
        return 0;
    }
    QSqlQuery hide = prepare(QString::fromLatin1(kHideBranchAfter), {messageId, messageId, messageId});
    qint64 id = 0;
    if (run(hide) && (id = addMessage(*conversation, edited)) != 0 && keepAsVersion(messageId, id) && db.commit())
        return id;
    db.rollback();
    return 0;
}

std::optional<qint64> ChatStore::conversationOf(qint64 messageId) const
{
    QSqlQuery query = prepare(QStringLiteral("SELECT conversation_id FROM messages WHERE id = ?"), {messageId});
    if (!run(query) || !query.next())
        return std::nullopt;
    return query.value(0).toLongLong();
}

bool ChatStore::deleteMessage(qint64 messageId)
{
    // With its versions, and the branches that followed them (and theirs).
    QSqlQuery query = prepare(QStringLiteral("WITH RECURSIVE doomed(id) AS (SELECT ? UNION SELECT m.id FROM messages m"
                                             " JOIN doomed d ON m.version_of = d.id OR m.branch_of = d.id)"
                                             " DELETE FROM messages WHERE id IN doomed"),
                              {messageId});
    return run(query);
}

bool ChatStore::keepAsVersion(qint64 earlierId, qint64 laterId)
{
    QSqlQuery query = prepare(QStringLiteral("UPDATE messages SET version_of = ? WHERE id = ? OR version_of = ?"),
                              {laterId, earlierId, earlierId});
    return run(query);
}

QVector<qint64> ChatStore::versionIds(qint64 shownId) const
{
    QSqlQuery query = prepare(QStringLiteral("SELECT id FROM messages WHERE id = ? OR version_of = ? ORDER BY id"),
                              {shownId, shownId});
    QVector<qint64> out;
    if (!run(query))
        return out;
    while (query.next())
        out.push_back(query.value(0).toLongLong());
    reportReadError(query);
    return out;
}

bool ChatStore::showVersion(qint64 shownId, qint64 wantedId)
{
    QSqlDatabase db = QSqlDatabase::database(connection_, false);
    if (!db.transaction()) {
        report(db.lastError(), QStringLiteral("BEGIN"));
        return false;
    }
    QSqlQuery hide = prepare(QString::fromLatin1(kHideBranchAfter), {shownId, shownId, shownId});
    QSqlQuery others = prepare(QStringLiteral("UPDATE messages SET version_of = ? WHERE (id = ? OR version_of = ?) AND id != ?"),
                               {wantedId, shownId, shownId, wantedId});
    QSqlQuery wanted = prepare(QStringLiteral("UPDATE messages SET version_of = 0 WHERE id = ?"), {wantedId});
    QSqlQuery show = prepare(QStringLiteral("UPDATE messages SET branch_of = 0 WHERE branch_of = ?"), {wantedId});
    if (!run(hide) || !run(others) || !run(wanted) || !run(show) || !db.commit()) {
        db.rollback();
        return false;
    }
    return true;
}

QString ChatStore::setting(qint64 conversationId, const QString& key) const
{
    QSqlQuery query = prepare(QStringLiteral("SELECT value FROM conversation_settings WHERE conversation_id = ? AND key = ?"),
                              {conversationId, key});
    return run(query) && query.next() ? query.value(0).toString() : QString();
}

void ChatStore::setSetting(qint64 conversationId, const QString& key, const QString& value)
{
    QSqlQuery query = prepare(QStringLiteral("INSERT OR REPLACE INTO conversation_settings (conversation_id, key, value)"
                                             " VALUES (?, ?, ?)"),
                              {conversationId, key, nonNull(value)});
    run(query);
}

QString ChatStore::lastReplyStats(qint64 conversationId) const
{
    return setting(conversationId, QStringLiteral("last_reply_stats"));
}

void ChatStore::setLastReplyStats(qint64 conversationId, const QString& snapshot)
{
    setSetting(conversationId, QStringLiteral("last_reply_stats"), snapshot);
}

QString ChatStore::draft(qint64 conversationId) const { return setting(conversationId, QStringLiteral("draft")); }

void ChatStore::setDraft(qint64 conversationId, const QString& text)
{
    setSetting(conversationId, QStringLiteral("draft"), text);
}

QString ChatStore::systemPrompt(qint64 conversationId) const
{
    return setting(conversationId, QStringLiteral("system_prompt"));
}

void ChatStore::setSystemPrompt(qint64 conversationId, const QString& text)
{
    setSetting(conversationId, QStringLiteral("system_prompt"), text);
}

qint64 ChatStore::lastConversation() const
{
    QSqlQuery query = prepare(QStringLiteral("SELECT value FROM app_state WHERE key = 'last_conversation'"), {});
    return run(query) && query.next() ? query.value(0).toLongLong() : 0;
}

void ChatStore::setLastConversation(qint64 id)
{
    QSqlQuery query = prepare(QStringLiteral("INSERT OR REPLACE INTO app_state (key, value) VALUES ('last_conversation', ?)"),
                              {QString::number(id)});
    run(query);
}

void ChatStore::touch(qint64 conversationId)
{
    QSqlQuery query = prepare(QStringLiteral("UPDATE conversations SET updated_at = ? WHERE id = ?"),
                              {nowMs(), conversationId});
    run(query);
}
