#include "single_instance.h"

#include <QCryptographicHash>
#include <QDir>
#include <QLocalSocket>
#include <spdlog/spdlog.h>

namespace {

constexpr int kWaitMs = 2000;

// A socket name that fits the platform's short path limit, one per data folder.
QString serverNameFor(const QString& dataDir)
{
    const QByteArray digest =
        QCryptographicHash::hash(QDir(dataDir).absolutePath().toUtf8(), QCryptographicHash::Sha256).toHex();
    return QStringLiteral("pyramidchat-") + QString::fromLatin1(digest.left(24));
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

bool SingleInstance::claim(const QString& modelPath)
{
    if (lock_.tryLock()) {
        QLocalServer::removeServer(serverName_);  // left by a run that crashed
        server_.setSocketOptions(QLocalServer::UserAccessOption);
        if (!server_.listen(serverName_))
            spdlog::warn("a second start cannot bring this window forward: {}", server_.errorString().toStdString());
        return true;
    }
    QLocalSocket socket;
    socket.connectToServer(serverName_);
    if (socket.waitForConnected(kWaitMs)) {
        socket.write(modelPath.toUtf8() + '\n');
        socket.waitForBytesWritten(kWaitMs);
        socket.disconnectFromServer();
    } else {
        spdlog::warn("the running PyramidChat did not answer: {}", socket.errorString().toStdString());
    }
    return false;
}

void SingleInstance::onConnection()
{
    while (QLocalSocket* socket = server_.nextPendingConnection()) {
        connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
        // The message is one line; it may arrive in pieces, or only as the peer disconnects.
        const auto readLine = [this, socket] {
            if (!socket->canReadLine())
                return;
            const QString path = QString::fromUtf8(socket->readLine()).chopped(1);
            emit activationRequested(path);
        };
        connect(socket, &QLocalSocket::readyRead, this, readLine);
        readLine();
    }
}
