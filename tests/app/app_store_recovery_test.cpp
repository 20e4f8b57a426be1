// StoreRecovery and its window: a database that cannot be opened is set aside with its journal
// (never deleted, never overwriting another file) or left alone, as the user chooses.
#include <QFile>
#include <QGuiApplication>
#include <QQuickWindow>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "app_test_files.h"
#include "chat_store.h"
#include "store_recovery.h"

namespace {

void writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
}

// Once the recovery window shows, presses its button named `button`.
void pressWhenShown(const QString& button, QString* shownProblem)
{
    QTimer::singleShot(0, [=] {
        for (QWindow* window : QGuiApplication::topLevelWindows()) {
            auto* quick = qobject_cast<QQuickWindow*>(window);
            QObject* target = quick ? quick->findChild<QObject*>(button) : nullptr;
            if (!target)
                continue;
            *shownProblem = quick->findChild<QObject*>(QStringLiteral("problem"))->property("text").toString();
            QMetaObject::invokeMethod(target, "clicked");
            return;
        }
        pressWhenShown(button, shownProblem);  // not loaded yet
    });
}

} // namespace

class StoreRecoveryTest : public QObject {
    Q_OBJECT

private slots:
    void setAsideMovesTheFileAndItsJournal()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("c.sqlite");
        {
            ChatStore store(path);
            store.createConversation("Kept");
        }
        const QByteArray database = fileBytes(path);
        writeFile(path + "-wal", "wal bytes");
        writeFile(path + "-shm", "shm bytes");
        writeFile(path + "-journal", "journal bytes");  // a database outside WAL mode

        StoreRecovery recovery(path, "damaged");
        QVERIFY(recovery.setAside(QDateTime(QDate(2026, 11, 25), QTime(12, 30, 5))));
        const QString aside = dir.filePath("c.sqlite.unreadable-20261125-123005");
        QCOMPARE(recovery.setAsidePath(), aside);
        QCOMPARE(fileBytes(aside), database);
        QCOMPARE(fileBytes(aside + "-wal"), QByteArray("wal bytes"));
        QCOMPARE(fileBytes(aside + "-shm"), QByteArray("shm bytes"));
        QCOMPARE(fileBytes(aside + "-journal"), QByteArray("journal bytes"));
        for (const char* suffix : {"", "-wal", "-shm", "-journal"})
            QVERIFY(!QFile::exists(path + suffix));

        QCOMPARE(ChatStore(path).conversations().size(), 0);  // a fresh start
        for (const char* suffix : {"-wal", "-shm", "-journal"})
            QFile::remove(aside + suffix);
        QCOMPARE(ChatStore(aside).conversations().value(0).title, QStringLiteral("Kept"));  // still there
    }

    void aTakenNameIsNeverOverwritten()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("c.sqlite");
        writeFile(path, "database");
        writeFile(path + "-wal", "wal");
        writeFile(path + "-shm", "shm");
        const QString aside = path + ".unreadable-20261125-123005";
        writeFile(aside + "-wal", "someone else's");

        StoreRecovery recovery(path, "damaged");
        QVERIFY(!recovery.setAside(QDateTime(QDate(2026, 11, 25), QTime(12, 30, 5))));
        QVERIFY2(recovery.error().contains("the name is taken"), qPrintable(recovery.error()));
        // What had moved already is back.
        QCOMPARE(fileBytes(path), QByteArray("database"));
        QCOMPARE(fileBytes(path + "-wal"), QByteArray("wal"));
        QCOMPARE(fileBytes(path + "-shm"), QByteArray("shm"));
        QCOMPARE(fileBytes(aside + "-wal"), QByteArray("someone else's"));
        QVERIFY(!QFile::exists(aside + "-shm"));
    }

    // No file (a dangling link, an unwritable folder) or a fresh file that failed too: setting
    // aside would change nothing, so the start would ask again forever.
    void thereIsNothingToSetAsideWithoutAFile()
    {
        QTemporaryDir dir;
        StoreRecovery missing(dir.filePath("c.sqlite"), "cannot open");
        QVERIFY(!missing.setAside());
        QVERIFY2(missing.error().contains("no file to set aside"), qPrintable(missing.error()));

        writeFile(dir.filePath("c.sqlite"), "still failing");
        StoreRecovery again(dir.filePath("c.sqlite"), "cannot open", false);
        QVERIFY(!again.canSetAside());
        QVERIFY(!again.setAside());
        QCOMPARE(fileBytes(dir.filePath("c.sqlite")), QByteArray("still failing"));
    }

    void theWindowShowsTheProblemAndSetsTheFileAside()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("c.sqlite");
        writeFile(path, "not a database");
        QString shown;
        pressWhenShown("setAside", &shown);
        QVERIFY(askWhetherToSetAside(*qGuiApp, path, "chat database c.sqlite is damaged"));
        QCOMPARE(shown, QStringLiteral("chat database c.sqlite is damaged"));
        QVERIFY(!QFile::exists(path));
        QCOMPARE(QDir(dir.path()).entryList({"c.sqlite.unreadable-*"}).size(), 1);
    }

    void quittingLeavesTheFileAlone()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("c.sqlite");
        writeFile(path, "not a database");
        QString shown;
        pressWhenShown("quit", &shown);
        QVERIFY(!askWhetherToSetAside(*qGuiApp, path, "damaged"));
        QCOMPARE(fileBytes(path), QByteArray("not a database"));
        QCOMPARE(QDir(dir.path()).entryList({"c.sqlite.unreadable-*"}).size(), 0);
    }
};

QTEST_MAIN(StoreRecoveryTest)
#include "app_store_recovery_test.moc"
