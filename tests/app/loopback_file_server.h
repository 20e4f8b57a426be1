#pragma once
// A loopback HTTP server for the download tests (no machine here reaches the catalogue's
// addresses): one file at any path, Range requests answered with 206, and on request a
// connection dropped midway, a server that ignores ranges, or an error status.
#include <QHash>
#include <QRegularExpression>
#include <QStringList>
#include <QTcpServer>
#include <QTcpSocket>
#include <QUrl>

// Serves one file at any path. dropAfter >= 0: the next response stops after that many body
// bytes; honourRange false: every response is the whole file with 200.
class FileServer : public QObject {
public:
    explicit FileServer(QByteArray body) : body_(std::move(body))
    {
        server_.listen(QHostAddress::LocalHost);
        connect(&server_, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = server_.nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] { serve(socket); });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1/model.gguf").arg(server_.serverPort())); }

    int dropAfter = -1;
    bool honourRange = true;
    int status = 0;  // non-zero: answer with this status and no body
    QStringList ranges;  // the Range header of each request ("" when none)

private:
    void serve(QTcpSocket* socket)
    {
        QByteArray& request = pending_[socket];
        request += socket->readAll();
        if (!request.contains("\r\n\r\n"))
            return;
        static const QRegularExpression range(QStringLiteral("\r\nRange: bytes=(\\d+)-"), QRegularExpression::CaseInsensitiveOption);
        const QRegularExpressionMatch m = range.match(QString::fromLatin1(request));
        ranges.push_back(m.hasMatch() ? m.captured(1) : QString());
        pending_.remove(socket);
        if (status != 0) {
            socket->write("HTTP/1.1 " + QByteArray::number(status) + " Nope\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            socket->disconnectFromHost();
            return;
        }
        const qint64 from = m.hasMatch() && honourRange ? m.captured(1).toLongLong() : 0;
        QByteArray head = from > 0 ? "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes " + QByteArray::number(from) + '-' +
                                         QByteArray::number(body_.size() - 1) + '/' + QByteArray::number(body_.size()) + "\r\n"
                                   : QByteArray("HTTP/1.1 200 OK\r\n");
        head += "Content-Length: " + QByteArray::number(body_.size() - from) + "\r\nConnection: close\r\n\r\n";
        QByteArray rest = body_.mid(from);
        if (dropAfter >= 0) {
            rest = rest.left(dropAfter);
            dropAfter = -1;
        }
        socket->write(head + rest);
        socket->disconnectFromHost();  // after what was written: short of Content-Length when dropped
    }

    QTcpServer server_;
    QByteArray body_;
    QHash<QTcpSocket*, QByteArray> pending_;
};

