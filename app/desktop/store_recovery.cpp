#include "store_recovery.h"

#include <QEventLoop>
#include <QFile>
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QUrl>
#include <QVector>
#include <spdlog/spdlog.h>

StoreRecovery::StoreRecovery(const QString& databasePath, const QString& problem, bool canSetAside, QObject* parent)
    : QObject(parent), databasePath_(databasePath), problem_(problem), canSetAside_(canSetAside)
{
}

bool StoreRecovery::setAside(const QDateTime& when)
{
    if (!canSetAside_ || !QFile::exists(databasePath_)) {
        error_ = tr("There is no file to set aside at %1.").arg(databasePath_);
        emit errorChanged();
        return false;
    }
    const QString target =
        databasePath_ + QStringLiteral(".unreadable-") + when.toString(QStringLiteral("yyyyMMdd-HHmmss"));
    // The journal files go first: a -wal or -journal left at the old name would be replayed
    // into (or deleted by) the new, empty database.
    QVector<std::pair<QString, QString>> moved;
    for (const QString& suffix : {QStringLiteral("-shm"), QStringLiteral("-wal"), QStringLiteral("-journal"), QString()}) {
        const QString from = databasePath_ + suffix, to = target + suffix;
        if (!QFile::exists(from))
            continue;
        QFile file(from);
        if (QFile::exists(to) || !file.rename(to)) {
            error_ = tr("Could not rename %1 to %2: %3")
                         .arg(from, to, QFile::exists(to) ? tr("the name is taken") : file.errorString());
            for (auto it = moved.crbegin(); it != moved.crend(); ++it)
                QFile::rename(it->second, it->first);
            emit errorChanged();
            return false;
        }
        moved.push_back({from, to});
    }
    setAsidePath_ = target;
    spdlog::warn("chat database {} set aside as {}", databasePath_.toStdString(), target.toStdString());
    emit finished(true);
    return true;
}

void StoreRecovery::quit() { emit finished(false); }

bool askWhetherToSetAside(QGuiApplication& app, const QString& databasePath, const QString& problem,
                          bool canSetAside)
{
    StoreRecovery recovery(databasePath, problem, canSetAside);
    QEventLoop loop;
    bool startFresh = false;
    QObject::connect(&recovery, &StoreRecovery::finished, &loop, [&](bool fresh) {
        startFresh = fresh;
        loop.quit();
    });
    // The main window comes after this one closes; the app must not end in between.
    const bool quitOnClose = app.quitOnLastWindowClosed();
    app.setQuitOnLastWindowClosed(false);
    {
        QQmlApplicationEngine qml;
        QQmlEngine::setObjectOwnership(&recovery, QQmlEngine::CppOwnership);
        qml.setInitialProperties({{QStringLiteral("recovery"), QVariant::fromValue(&recovery)}});
        qml.load(QUrl(QStringLiteral("qrc:/pyramidchat/qml/StoreProblem.qml")));
        if (!qml.rootObjects().isEmpty())
            loop.exec();
        recovery.disconnect();  // closing the window as it goes is no second answer
    }
    app.setQuitOnLastWindowClosed(quitOnClose);
    return startFresh;
}
