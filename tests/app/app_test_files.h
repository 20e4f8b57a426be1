#pragma once
// What app tests do to the files behind the app, as another program (or a failing disk) would:
// run SQL on the conversation database outside ChatStore, and read a file's bytes.
#include <QFile>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QStringList>
#include <QTest>

// Runs `statements` on the SQLite file at `path` through a connection of its own.
inline void runOnDatabase(const QString& path, const QStringList& statements)
{
    const QString connection = QStringLiteral("test-raw");
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connection);
        db.setDatabaseName(path);
        QVERIFY(db.open());
        QSqlQuery q(db);
        for (const QString& statement : statements)
            QVERIFY2(q.exec(statement), qPrintable(statement));
    }
    QSqlDatabase::removeDatabase(connection);
}

// Makes every `operation` (INSERT, UPDATE, DELETE) on the messages table fail, as a full disk
// would; "DROP TRIGGER fail" ends it.
inline void failMessageWrites(const QString& database, const QString& operation)
{
    runOnDatabase(database, {QStringLiteral("CREATE TRIGGER fail BEFORE %1 ON messages"
                                            " BEGIN SELECT RAISE(ABORT, 'simulated disk failure'); END")
                                 .arg(operation)});
}

inline QByteArray fileBytes(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}
