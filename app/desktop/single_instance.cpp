#include "single_instance.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalSocket>
#include <QStandardPaths>
#include <QWindow>
#include <algorithm>
#include <spdlog/spdlog.h>

namespace {

constexpr int kWaitMs = 2000;
constexpr char kTokenVariable[] = "XDG_ACTIVATION_TOKEN";

// A token is opaque but short and printable; anything else is not passed to the compositor.
bool plausibleToken(const QString& token)
{
    return token.size() <= 1024 &&
           std::all_of(token.begin(), token.end(), [](QChar c) { return c.unicode() > 0x20 && c.unicode() < 0x7f; });
}

// The socket lives in the user's own runtime folder (not a shared /tmp another user could
// take first), named after the data folder as the file system knows it (symlinks resolved).
QString serverNameFor(const QString& dataDir)
{
    const QFileInfo dir(dataDir);
    const QString canonical = dir.canonicalFilePath().isEmpty() ? dir.absoluteFilePath() : dir.canonicalFilePath();
    const QByteArray digest = QCryptographicHash::hash(canonical.toUtf8(), QCryptographicHash::Sha256).toHex();
    const QString name = QStringLiteral("pyramidchat-") + QString::fromLatin1(digest.left(24));
    const QString runtime = QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation);
    return runtime.isEmpty() ? name : QDir(runtime).filePath(name);
}

} // namespace

SingleInstance::SingleInstance(const QString& dataDir, QObject* parent)
    : QObject(parent), lock_(QDir(dataDir).filePath(QStringLiteral("pyramidchat.lock"))),
      serverName_(serverNameFor(dataDir))
{
    // Held for the whole session: never stale by age, only when its process is gone.
    lock_.setStaleLockTime(0);
    connect(&server_, &QLocalServer::newConnection, this, &SingleInstance::onConnection);
}

SingleInstance::Claim SingleInstance::claim(const QString& modelPath)
{
    if (lock_.tryLock()) {
        QLocalServer::removeServer(serverName_);  // left by a run that crashed
        server_.setSocketOptions(QLocalServer::UserAccessOption);
        if (!server_.listen(serverName_))
            spdlog::warn("a second start cannot bring this window forward: {}", server_.errorString().toStdString());
        return Claim::Owner;
    }
    if (lock_.error() != QLockFile::LockFailedError) {
        // No lock can be made here (a read-only folder): nothing to share it with either.
        spdlog::warn("cannot lock {}; a second PyramidChat would not be noticed", lock_.fileName().toStdString());
        return Claim::Owner;
    }
    QLocalSocket socket;
    socket.connectToServer(serverName_);
    if (!socket.waitForConnected(kWaitMs)) {
        spdlog::warn("the PyramidChat holding {} did not answer: {}", lock_.fileName().toStdString(),
                     socket.errorString().toStdString());
        return Claim::Unanswered;
    }
    // One line of JSON: a path may hold any character, a newline too.
    const QString token = qEnvironmentVariable(kTokenVariable);
    const QJsonObject message{{QStringLiteral("model"), modelPath}, {QStringLiteral("activation_token"), token}};
    socket.write(QJsonDocument(message).toJson(QJsonDocument::Compact) + '\n');
    socket.waitForBytesWritten(kWaitMs);
    socket.disconnectFromServer();
    qunsetenv(kTokenVariable);  // a token activates once
    return Claim::Forwarded;
}

QString SingleInstance::holderDescription() const
{
    qint64 pid = 0;
    QString host, application;
    lock_.getLockInfo(&pid, &host, &application);
    return tr("Another PyramidChat (process %1 on %2) is using this user's conversations but does not answer. "
              "If it is not running any more, delete %3 and start PyramidChat again.")
        .arg(pid)
        .arg(host, lock_.fileName());
}

void SingleInstance::onConnection()
{
    while (QLocalSocket* socket = server_.nextPendingConnection()) {
        connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
        // The message is one line; it may arrive in pieces, or only as the peer disconnects.
        const auto readLine = [this, socket] {
            if (!socket->canReadLine())
                return;
            const QJsonObject message = QJsonDocument::fromJson(socket->readLine()).object();
            const QString token = message.value(QStringLiteral("activation_token")).toString();
            emit activationRequested(message.value(QStringLiteral("model")).toString(),
                                     plausibleToken(token) ? token : QString());
        };
        connect(socket, &QLocalSocket::readyRead, this, readLine);
        readLine();
    }
}

void SingleInstance::bringForward(QWindow& window, const QString& activationToken)
{
    // Qt's Wayland client reads the token from the environment when a window asks for the
    // focus (and clears it); elsewhere it is not read, and no child process may inherit it.
    if (!activationToken.isEmpty())
        qputenv(kTokenVariable, activationToken.toUtf8());
    window.setWindowStates(window.windowStates() & ~Qt::WindowMinimized);
    window.show();
    window.raise();
    window.requestActivate();
    qunsetenv(kTokenVariable);
}
