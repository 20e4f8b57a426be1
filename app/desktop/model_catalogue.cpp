#include "model_catalogue.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QRegularExpression>
#include <algorithm>

#include "model_manager.h"

ModelCatalogue::ModelCatalogue(QNetworkAccessManager& network, ModelManager& models, QString modelsDir, QObject* parent,
                               QString builtIn)
    : QObject(parent), models_(models), modelsDir_(std::move(modelsDir)), builtIn_(std::move(builtIn)), download_(network)
{
    connect(&download_, &ModelDownload::stateChanged, this, &ModelCatalogue::downloadChanged);
    connect(&download_, &ModelDownload::progressChanged, this, &ModelCatalogue::progressChanged);
    connect(&download_, &ModelDownload::finished, this, &ModelCatalogue::onFinished);
    reload();
}

QVector<ModelCatalogue::Entry> ModelCatalogue::read(const QString& path, QStringList& refused)
{
    QVector<Entry> out;
    QFile file(path);
    if (!file.exists())
        return out;
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(file.open(QIODevice::ReadOnly) ? file.read(1 << 20) : QByteArray(), &error);
    if (error.error != QJsonParseError::NoError || !document.object().value(QStringLiteral("models")).isArray())
        problem_ = tr("%1 is not a catalogue: it needs a “models” list.").arg(path);
    static const QRegularExpression digest(QStringLiteral("^[0-9a-fA-F]{64}$"));
    for (const QJsonValue& value : document.object().value(QStringLiteral("models")).toArray()) {
        const QJsonObject o = value.toObject();
        Entry e{o.value(QStringLiteral("name")).toString(), o.value(QStringLiteral("file")).toString(),
                o.value(QStringLiteral("about")).toString(), QUrl(o.value(QStringLiteral("url")).toString()),
                o.value(QStringLiteral("sha256")).toString().toLatin1(),
                qint64(o.value(QStringLiteral("bytes")).toDouble())};
        const bool fileOk = e.file.endsWith(QLatin1String(".gguf")) && QFileInfo(e.file).fileName() == e.file &&
                            !e.file.startsWith(QLatin1Char('.'));
        const bool urlOk = e.url.isValid() && (e.url.scheme() == QLatin1String("https") || e.url.scheme() == QLatin1String("http"));
        const bool digestOk = e.sha256.isEmpty() || digest.match(QString::fromLatin1(e.sha256)).hasMatch();
        if (e.name.isEmpty() || !fileOk || !urlOk || !digestOk)
            refused.push_back(e.name.isEmpty() ? e.file : e.name);
        else
            out.push_back(e);
    }
    return out;
}

void ModelCatalogue::reload()
{
    entries_.clear();
    problem_.clear();
    QStringList refused;
    entries_ = read(builtIn_, refused);
    for (const Entry& e : read(QDir(modelsDir_).filePath(QStringLiteral("catalogue.json")), refused)) {
        const auto same = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& b) { return b.file == e.file; });
        if (same != entries_.end())
            *same = e;
        else
            entries_.push_back(e);
    }
    if (!refused.isEmpty())
        problem_ = tr("Left out of the catalogue, for a missing name, a file name that is not a plain .gguf "
                      "name, an address that is not http(s) or a SHA-256 that is not 64 hex digits: %1")
                       .arg(refused.join(QStringLiteral(", ")));
    emit entriesChanged();
}

QVariantList ModelCatalogue::entries() const
{
    const QLocale locale;
    QVariantList out;
    for (const Entry& e : entries_)
        out.push_back(QVariantMap{{QStringLiteral("name"), e.name},
                                  {QStringLiteral("file"), e.file},
                                  {QStringLiteral("url"), e.url.toString()},
                                  {QStringLiteral("size"), e.bytes > 0 ? locale.formattedDataSize(e.bytes) : QString()},
                                  {QStringLiteral("about"), e.about},
                                  {QStringLiteral("present"), QFileInfo::exists(QDir(modelsDir_).filePath(e.file))},
                                  {QStringLiteral("verified"), !e.sha256.isEmpty()}});
    return out;
}

void ModelCatalogue::download(int index)
{
    if (index < 0 || index >= entries_.size() || download_.running())
        return;
    const Entry& e = entries_.at(index);
    QDir().mkpath(modelsDir_);
    downloadingName_ = e.name;
    downloadingPath_ = QDir(modelsDir_).filePath(e.file);
    download_.start(e.url, downloadingPath_, e.sha256);
}

void ModelCatalogue::cancel() { download_.cancel(); }

void ModelCatalogue::onFinished(bool ok)
{
    if (!ok)
        return;  // error() says why; a cancelled one says nothing
    models_.rescan();
    emit entriesChanged();  // "present" changed
    if (!models_.hasModel() && !models_.loading())
        models_.open(downloadingPath_);
}
