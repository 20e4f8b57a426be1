#pragma once
// What the user may do when the conversations cannot be opened (a damaged or unreadable file,
// one written by a newer PyramidChat, or another PyramidChat holding them): quit and keep the
// file as it is, or, where that can help, set it aside under a new name, its journal with it,
// and start with an empty history. Nothing is ever deleted: the set-aside file can be copied
// back, opened with sqlite3, or by a newer PyramidChat. StoreProblem.qml shows it; main.cpp
// asks before it builds the app.
#include <QDateTime>
#include <QObject>
#include <QString>

class QGuiApplication;

class StoreRecovery : public QObject {
    Q_OBJECT
    Q_PROPERTY(QString problem READ problem CONSTANT)
    Q_PROPERTY(QString databasePath READ databasePath CONSTANT)
    Q_PROPERTY(bool canSetAside READ canSetAside CONSTANT)
    Q_PROPERTY(QString error READ error NOTIFY errorChanged)

public:
    // `canSetAside` false: there is nothing to set aside (no file, or a fresh one failed too).
    StoreRecovery(const QString& databasePath, const QString& problem, bool canSetAside = true,
                  QObject* parent = nullptr);

    QString problem() const { return problem_; }
    QString databasePath() const { return databasePath_; }
    bool canSetAside() const { return canSetAside_; }
    QString error() const { return error_; }  // why setting aside failed; empty otherwise
    QString setAsidePath() const { return setAsidePath_; }

    // Renames the database and its -wal/-shm/-journal files to "<name>.unreadable-<date>-<time>";
    // emits finished(true) on success. On failure, puts back what moved and sets error().
    Q_INVOKABLE bool setAside(const QDateTime& when = QDateTime::currentDateTime());
    Q_INVOKABLE void quit();  // emits finished(false)

signals:
    void finished(bool startFresh);
    void errorChanged();

private:
    QString databasePath_;
    QString problem_;
    bool canSetAside_;
    QString error_;
    QString setAsidePath_;
};

// Shows StoreProblem.qml for the database at `databasePath` and waits for the user's choice.
// True when the file was set aside, so the app can start with an empty one.
bool askWhetherToSetAside(QGuiApplication& app, const QString& databasePath, const QString& problem,
                          bool canSetAside = true);
