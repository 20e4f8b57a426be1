#pragma once
// Models the user can download into the models folder: the app's own catalogue (catalogue.json
// beside this file, built in as :/pyramidchat/catalogue.json), extended by "catalogue.json" in
// the models folder, whose entries come after the built-in ones and replace one of the same
// file name:
//   {"models": [{"name": "...", "file": "x.gguf", "url": "https://...", "sha256": "<64 hex>",
//                "bytes": 123, "about": "..."}]}
// Each entry is checked when read (a name, a plain .gguf file name, an http(s) address, and a
// SHA-256 of 64 hex digits if it has one); one that is not right is left out and said in
// `problem`. An entry without a SHA-256 is offered as not verified: its download is put in
// place as it arrives. A digest is only given where the file behind the address was checked
// (catalogue.json says how); a number nobody checked would make a check that proves nothing.
// A download runs one at a time (ModelDownload: resumable, checked), and a model that arrives
// is offered at once (rescan) and opened when none is open.
#include <QObject>
#include <QString>
#include <QVariantList>
#include <QVector>

#include "model_download.h"

class ModelManager;

class ModelCatalogue : public QObject {
    Q_OBJECT
    // [{name, file, url, size (text), about, present (bool), verified (bool: has a SHA-256)}]
    Q_PROPERTY(QVariantList entries READ entries NOTIFY entriesChanged)
    Q_PROPERTY(QString problem READ problem NOTIFY entriesChanged)
    Q_PROPERTY(bool downloading READ downloading NOTIFY downloadChanged)
    Q_PROPERTY(QString downloadingName READ downloadingName NOTIFY downloadChanged)
    Q_PROPERTY(double progress READ progress NOTIFY progressChanged)
    Q_PROPERTY(QString error READ error NOTIFY downloadChanged)

public:
    // `builtIn`: the app's own catalogue file.
    ModelCatalogue(QNetworkAccessManager& network, ModelManager& models, QString modelsDir, QObject* parent = nullptr,
                   QString builtIn = QStringLiteral(":/pyramidchat/catalogue.json"));

    Q_INVOKABLE void reload();  // reads the catalogues again
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
    // The entries of one catalogue file; the names of those left out go to `refused`, and a
    // file that is no catalogue is said in problem_.
    QVector<Entry> read(const QString& path, QStringList& refused);

    ModelManager& models_;
    QString modelsDir_;
    QString builtIn_;
    QVector<Entry> entries_;
    QString problem_;
    ModelDownload download_;
    QString downloadingName_;
    QString downloadingPath_;
};
