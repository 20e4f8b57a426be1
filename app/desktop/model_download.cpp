#include "model_download.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QLocale>
#include <QMetaObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QThread>
#include <memory>
#include <utility>

ModelDownload::ModelDownload(QNetworkAccessManager& network, QObject* parent) : QObject(parent), network_(network) {}

ModelDownload::~ModelDownload()
{
    if (reply_) {
        reply_->disconnect(this);
        reply_->abort();
        reply_->deleteLater();
    }
}

double ModelDownload::progress() const { return total_ > 0 ? double(received_) / double(total_) : -1.0; }

void ModelDownload::start(const QUrl& url, const QString& target, const QByteArray& sha256Hex)
{
    if (running_)
        return;
    target_ = target;
    expected_ = sha256Hex.toLower();
    error_.clear();
    cancelled_ = false;
    part_.setFileName(partPath());
    if (!part_.open(QIODevice::ReadWrite)) {
        end(false, tr("Could not write %1: %2").arg(partPath(), part_.errorString()));
        return;
    }
    received_ = part_.size();
    part_.seek(received_);
    total_ = -1;
    QNetworkRequest request(url);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::NoLessSafeRedirectPolicy);
    if (received_ > 0)  // the rest of what an earlier start fetched
        request.setRawHeader("Range", "bytes=" + QByteArray::number(received_) + '-');
    reply_ = network_.get(request);
    connect(reply_, &QNetworkReply::readyRead, this, &ModelDownload::onReadyRead);
    connect(reply_, &QNetworkReply::finished, this, &ModelDownload::onReplyFinished);
    running_ = true;
    emit stateChanged();
    emit progressChanged();
}

void ModelDownload::cancel()
{
    if (!reply_)
        return;
    cancelled_ = true;
    reply_->abort();  // onReplyFinished ends it
}

void ModelDownload::onReadyRead()
{
    if (total_ < 0) {
        const int status = reply_->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status == 200 && received_ > 0) {  // the server sent the whole file: start over
            part_.resize(0);
            part_.seek(0);
            received_ = 0;
        }
        const qint64 length = reply_->header(QNetworkRequest::ContentLengthHeader).toLongLong();
        if (status == 200 || status == 206)
            total_ = length > 0 ? received_ + length : -1;
    }
    const QByteArray chunk = reply_->readAll();
    if (part_.write(chunk) != chunk.size()) {
        error_ = tr("Could not write %1: %2").arg(partPath(), part_.errorString());
        reply_->abort();
        return;
    }
    received_ += chunk.size();
    emit progressChanged();
}

void ModelDownload::onReplyFinished()
{
    QNetworkReply* reply = std::exchange(reply_, nullptr);
    reply->deleteLater();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    part_.flush();
    part_.close();
    if (!error_.isEmpty()) {  // a failed write
        end(false, error_);
        return;
    }
    if (cancelled_) {
        end(false, {});
        return;
    }
    // A connection closed early can end without an error from Qt: the size the server announced
    // decides whether the file is whole.
    const bool shortBody = total_ > 0 && received_ < total_;
    if (reply->error() != QNetworkReply::NoError || (status != 200 && status != 206) || shortBody) {
        const QLocale locale;
        const QString where = total_ > 0 ? tr("after %1 of %2").arg(locale.formattedDataSize(received_),
                                                                     locale.formattedDataSize(total_))
                                         : tr("after %1").arg(locale.formattedDataSize(received_));
        const QString why = status >= 400                              ? tr("the server answered %1").arg(status)
                            : reply->error() != QNetworkReply::NoError ? reply->errorString()
                                                                       : tr("the connection closed early");
        end(false, tr("The download stopped %1 (%2). Start it again to go on from there.").arg(where, why));
        return;
    }
    verify();
}

void ModelDownload::verify()
{
    struct Check {
        QByteArray digest;
        QString readError;
    };
    const auto check = std::make_shared<Check>();
    const QString path = partPath();
    QThread* thread = QThread::create([check, path] {
        QFile file(path);
        QCryptographicHash hash(QCryptographicHash::Sha256);
        if (!file.open(QIODevice::ReadOnly) || !hash.addData(&file))
            check->readError = file.errorString();
        check->digest = hash.result().toHex();
    });
    // Answered on this object's thread; a download destroyed meanwhile hears nothing.
    connect(thread, &QThread::finished, this, [this, check] { onVerified(check->digest, check->readError); });
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    thread->start();
}

void ModelDownload::onVerified(const QByteArray& digest, const QString& readError)
{
    if (!readError.isEmpty()) {
        end(false, tr("Could not read %1 to check it: %2").arg(partPath(), readError));
        return;
    }
    if (!expected_.isEmpty() && digest != expected_) {
        QFile::remove(partPath());  // a wrong file is no start for the next try
        end(false, tr("The file that arrived is not the one expected (its SHA-256 is %1, not %2), so it was "
                      "deleted. Try again later, or check the catalogue's address.")
                       .arg(QString::fromLatin1(digest), QString::fromLatin1(expected_)));
        return;
    }
    QFile::remove(target_);
    if (!QFile::rename(partPath(), target_)) {
        end(false, tr("Could not move the download into place as %1.").arg(target_));
        return;
    }
    end(true, {});
}

void ModelDownload::end(bool ok, const QString& error)
{
    running_ = false;
    error_ = error;
    emit stateChanged();
    emit progressChanged();
    emit finished(ok);
}
