#pragma once
// Models the user can download into the models folder, from "catalogue.json" there:
//   {"models": [{"name": "...", "file": "x.gguf", "url": "https://...", "sha256": "<64 hex>",
//                "bytes": 123, "about": "..."}]}
// Each entry is checked when read (a plain .gguf file name, an http(s) address, a SHA-256);
// one that is not right is left out and said in `problem`. A download runs one at a time
// (ModelDownload: resumable, checked), and a model that arrives is offered at once (rescan)
// and opened when none is open. No entries are built in: their digests must be checked
// against the files themselves, which this machine cannot reach.
#include <QObject>
#include <QString>
#include <QVariantList>
#include <QVector>

#include "model_download.h"

class ModelManager;

class ModelCatalogue : public QObject {
    Q_OBJECT
    // [{name, file, url, size (text), about, present (bool)}]
    Q_PROPERTY(QVariantList entries READ entries NOTIFY entriesChanged)
    Q_PROPERTY(QString problem READ problem NOTIFY entriesChanged)
    Q_PROPERTY(bool downloading READ downloading NOTIFY downloadChanged)
    Q_PROPERTY(QString downloadingName READ downloadingName NOTIFY downloadChanged)
    Q_PROPERTY(double progress READ progress NOTIFY progressChanged)
    Q_PROPERTY(QString error READ error NOTIFY downloadChanged)

public:
    ModelCatalogue(QNetworkAccessManager& network, ModelManager& models, QString modelsDir, QObject* parent = nullptr);

    Q_INVOKABLE void reload();  // reads catalogue.json again
    Q_INVOKABLE void download(int index);
    Q_INVOKABLE void cancel();

    QVariantList entries() const;
    QString problem() const { return problem_; }
    bool downloading() const { return download_.running(); }
    QString downloadingName() const { return downloadingName_; }
    double progress() const { return download_.progress(); }
    QString error() const { return download_.error(); }

signals:
    void entriesChanged();
    void downloadChanged();
    void progressChanged();

private:
    struct Entry {
        QString name, file, about;
        QUrl url;
        QByteArray sha256;
        qint64 bytes = 0;
    };
    void onFinished(bool ok);

    ModelManager& models_;
    QString modelsDir_;
    QVector<Entry> entries_;
    QString problem_;
    ModelDownload download_;
    QString downloadingName_;
    QString downloadingPath_;
};
