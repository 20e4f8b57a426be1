#pragma once
// One model file fetched over HTTP(S) into the models folder. It is written to "<target>.part"
// beside the target; a download that breaks off or is cancelled keeps that part, and the next
// start of the same target asks the server for the rest (a Range request; a server that sends
// the whole file again is written from the start). Once complete, the file's SHA-256 is
// checked on a worker thread (a model is gigabytes: the UI thread never reads it through) and
// only a file that matches is renamed into place; one that does not is deleted, not resumed.
// Errors are worded for the user and leave the app as it was.
#include <QByteArray>
#include <QFile>
#include <QObject>
#include <QString>
#include <QUrl>

class QNetworkAccessManager;
class QNetworkReply;

class ModelDownload : public QObject {
    Q_OBJECT
    Q_PROPERTY(bool running READ running NOTIFY stateChanged)
    Q_PROPERTY(double progress READ progress NOTIFY progressChanged)  // 0..1; -1 while the size is unknown
    Q_PROPERTY(QString error READ error NOTIFY stateChanged)

public:
    explicit ModelDownload(QNetworkAccessManager& network, QObject* parent = nullptr);
    ~ModelDownload() override;  // stops a transfer; a running check finishes unheard

    // `sha256Hex`: the expected digest, hex; empty: none is known, and the file is put in
    // place as it arrived (the catalogue says such an entry is not verified). Does nothing
    // while one runs.
    void start(const QUrl& url, const QString& target, const QByteArray& sha256Hex);
    // Stops the transfer; the part stays for the next start. finished(false) with no error.
    void cancel();

    bool running() const { return running_; }
    double progress() const;
    QString error() const { return error_; }
    QString partPath() const { return target_ + QStringLiteral(".part"); }

signals:
    void stateChanged();
    void progressChanged();
    void finished(bool ok);  // ok: the file is in place; else error() says why (empty: cancelled)

private:
    void onReadyRead();
    void onReplyFinished();
    void verify();  // on a worker thread, answered by onVerified
    void onVerified(const QByteArray& digest, const QString& readError);
    void end(bool ok, const QString& error);

    QNetworkAccessManager& network_;
    QNetworkReply* reply_ = nullptr;
    QFile part_;
    QString target_;
    QByteArray expected_;
    qint64 received_ = 0;  // bytes in the part
    qint64 total_ = -1;    // the whole file's size, when the server says it
    bool running_ = false;
    bool cancelled_ = false;
    QString error_;
};
