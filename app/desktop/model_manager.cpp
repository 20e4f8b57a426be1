#include "model_manager.h"

#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <QSettings>
#include <QUrl>

#include <utility>

#include "backend/cuda_backend_options.h"
#include "chat_controller.h"
#include "device_text.h"
#include "settings_model.h"

namespace {

constexpr int kMaxRecent = 8;
const QString kRecentKey = QStringLiteral("models/recent");

// A Hugging Face model folder: a config.json beside the weights.
bool isModelFolder(const QString& path)
{
    const QDir dir(path);
    return dir.exists(QStringLiteral("config.json")) &&
           !dir.entryList({QStringLiteral("*.safetensors")}, QDir::Files).isEmpty();
}

} // namespace

ModelManager::ModelManager(ChatController& controller, SettingsModel& settings, QSettings& store,
                           QStringList searchDirs, QObject* parent)
    : QObject(parent), controller_(controller), settings_(settings), store_(store), searchDirs_(std::move(searchDirs))
{
    for (const QString& path : store_.value(kRecentKey).toStringList()) {
        if (const QString clean = QDir::cleanPath(path); !recent_.contains(clean))
            recent_.push_back(clean);
    }
    connect(&controller_, &ChatController::modelLoadProgress, this, [this](double fraction) {
        progress_ = fraction;
        emit progressChanged();
    });
    connect(&controller_, &ChatController::modelLoaded, this, &ModelManager::onLoaded);
    connect(&controller_, &ChatController::modelLoadFailed, this, &ModelManager::onFailed);
    rescan();
}

QStringList ModelManager::defaultSearchDirs(const QString& appDataDir, const QString& sharedDir)
{
    QStringList dirs{QDir(appDataDir).filePath(QStringLiteral("models"))};
    if (!sharedDir.isEmpty())
        dirs.push_back(QDir::cleanPath(QDir(sharedDir).filePath(QStringLiteral("models"))));
    return dirs;
}

void ModelManager::open(const QString& pathOrUrl)
{
    const QUrl url(pathOrUrl);
    const QString path = url.isLocalFile() ? url.toLocalFile() : pathOrUrl;
    if (path.isEmpty())
        return;
    const QFileInfo file(path);
    if (!file.exists()) {
        setError(tr("%1 does not exist.").arg(path));
        return;
    }
    if (file.isDir() && !isModelFolder(path)) {
        setError(tr("%1 is not a model folder: it needs config.json and .safetensors weights.").arg(path));
        return;
    }
    const QString cleanPath = QDir::cleanPath(file.absoluteFilePath());  // "folder/" and "folder" are one model
    if (loading()) {
        // The latest request wins (a model opened from the file manager while the start-up
        // model loads): the current load is cancelled and this one starts when it has ended.
        initialCandidates_.clear();
        if (cleanPath == loadingPath_ && !cancelRequested_) {
            nextPath_.clear();
            return;
        }
        nextPath_ = cleanPath;
        stopLoading(true);
        return;
    }
    setError({});
    loadingPath_ = cleanPath;
    cancelRequested_ = false;
    progress_ = 0;
    emit loadingChanged();
    emit progressChanged();
    controller_.loadModel(loadingPath_);
}

void ModelManager::openInitial()
{
    // The recent models that still exist, then the default: each one that fails to open
    // hands over to the next, so one broken file does not leave every start without a model.
    initialCandidates_.clear();
    for (const QString& path : recent_) {
        if (QFileInfo::exists(path))
            initialCandidates_.push_back(path);
    }
    if (const QString fallback = defaultModelPath(); !fallback.isEmpty() && !initialCandidates_.contains(fallback))
        initialCandidates_.push_back(fallback);
    initialFailures_.clear();
    if (initialCandidates_.isEmpty())
        setError(tr("No model found in %1. Open a GGUF file or a Hugging Face folder.")
                     .arg(searchDirs_.join(QStringLiteral(", "))));
    else
        open(initialCandidates_.takeFirst());
}

void ModelManager::cancel()
{
    nextPath_.clear();
    stopLoading();
}

void ModelManager::stopLoading(bool anotherFollows)
{
    if (!loading())
        return;
    cancelRequested_ = true;
    controller_.cancelLoad(anotherFollows);
}

void ModelManager::rescan()
{
    QVector<ModelFileInfo> files;
    QHash<QString, Probe> probes;
    for (const QString& dirPath : searchDirs_) {
        const QDir dir(dirPath);
        QFileInfoList entries = dir.entryInfoList({QStringLiteral("*.gguf")}, QDir::Files | QDir::System, QDir::Name);
        for (const QFileInfo& entry : dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
            if (isModelFolder(entry.absoluteFilePath()))
                entries.push_back(entry);
        for (const QFileInfo& entry : entries) {
            const QString path = entry.absoluteFilePath();
            Probe probe = probes_.value(path);
            if (probe.size != entry.size() || probe.modified != entry.lastModified())
                probe = {entry.size(), entry.lastModified(), probeModelFile(path)};
            probes.insert(path, probe);
            files.push_back(probe.info);
        }
    }
    probes_ = std::move(probes);
    QStringList found;
    QVariantList shown;
    const pyramid::KvTypes kvTypes = estimatedKvTypes();
    for (const ModelFileInfo& file : files) {
        if (file.usable())
            found.push_back(file.path);
        // The memory at the settings now: the menu rescans as it opens.
        shown.push_back(QVariantMap{{QStringLiteral("path"), file.path},
                                    {QStringLiteral("name"), displayName(file.path)},
                                    {QStringLiteral("summary"), file.summary()},
                                    {QStringLiteral("memory"),
                                     file.memoryText(settings_.current().compression.pyramid, kvTypes)},
                                    {QStringLiteral("usable"), file.usable()},
                                    {QStringLiteral("problem"), file.problem}});
    }
    if (found == available_ && shown == modelFiles_)
        return;
    available_ = found;
    modelFiles_ = shown;
    emit availableModelsChanged();
}

pyramid::KvTypes ModelManager::estimatedKvTypes() const
{
    const ChatSettings& settings = settings_.current();
    // "auto" chose the device the open model runs on, and chooses it again at the next start.
    const bool openOnGpu = hasModel() && runsOnGpu(QString::fromStdString(info_.backend));
    const bool gpu = settings.device == QLatin1String("cuda") || (settings.device == QLatin1String("auto") && openOnGpu);
    // The app runs a GPU in fp16 (main.cpp asks for no other precision).
    return gpu ? pyramid::cuda::cuda_stored_kv_types(settings.kvTypes(), pyramid::cuda::Precision::Fp16)
               : settings.kvTypes();
}

void ModelManager::clearError() { setError({}); }

QString ModelManager::displayName(const QString& path) const { return QFileInfo(path).fileName(); }

QUrl ModelManager::modelsFolder() const
{
    if (searchDirs_.isEmpty())
        return {};
    QDir().mkpath(searchDirs_.front());
    return QUrl::fromLocalFile(searchDirs_.front());
}

QString ModelManager::defaultModelPath() const
{
    for (const QString& dir : searchDirs_) {
        const QString candidate = QDir(dir).filePath(QString::fromLatin1(kDefaultModelFile));
        if (QFileInfo::exists(candidate))
            return candidate;
    }
    return available_.isEmpty() ? QString() : available_.front();
}

QString ModelManager::modelName() const
{
    // The file or folder name: the name inside a GGUF file is often just the architecture.
    return displayName(modelPath_);
}

QString ModelManager::backend() const { return deviceText(QString::fromStdString(info_.backend)); }

QString ModelManager::modelSummary() const
{
    if (!hasModel())
        return tr("No model open");
    const QLocale locale;
    return tr("%1 · %2 layers · %3 positions · %4 · %5")
        .arg(QString::fromStdString(info_.name), locale.toString(info_.n_layers), locale.toString(info_.context_length),
             locale.formattedDataSize(qint64(info_.weight_bytes)), QString::fromStdString(info_.format));
}

void ModelManager::onLoaded(const pyramid::ModelInfo& info)
{
    const QString path = loadingPath_;
    info_ = info;
    modelPath_ = path;
    settings_.setDetectedPromptFormat(pyramid::likely_prompt_format(info).format);
    recent_.removeAll(path);
    recent_.prepend(path);
    while (recent_.size() > kMaxRecent)
        recent_.removeLast();
    store_.setValue(kRecentKey, recent_);
    finishLoading();
    initialCandidates_.clear();
    if (!initialFailures_.isEmpty())  // recent models that would not open on the way here
        setError(tr("%1 Opened %2 instead.").arg(initialFailures_.join(QLatin1Char(' ')), displayName(path)));
    initialFailures_.clear();
    emit modelChanged();
    emit recentModelsChanged();
    openNext();  // a newer request came while this one loaded
}

void ModelManager::onFailed(const QString& message, bool modelKept)
{
    const QString path = loadingPath_;
    const bool cancelled = cancelRequested_;
    finishLoading();
    const bool lost = !modelKept && hasModel();
    if (lost) {
        modelPath_.clear();
        info_ = {};
        emit modelChanged();
    }
    if (openNext()) {  // this load made way for a newer request
        initialFailures_.clear();
        return;
    }
    // A cancelled load goes unmentioned, unless it cost the model that was open.
    if (cancelled && !lost) {
        initialCandidates_.clear();
        initialFailures_.clear();
        return;
    }
    initialFailures_.push_back(tr("Could not open %1: %2").arg(displayName(path), message));
    if (!cancelled && !initialCandidates_.isEmpty()) {
        open(initialCandidates_.takeFirst());
        return;
    }
    initialCandidates_.clear();
    setError(initialFailures_.join(QLatin1Char(' ')));
    initialFailures_.clear();
}

void ModelManager::finishLoading()
{
    loadingPath_.clear();
    cancelRequested_ = false;
    emit loadingChanged();
}

bool ModelManager::openNext()
{
    const QString next = std::exchange(nextPath_, {});
    // Already open: a load cancelled for it finished before it heard the cancel.
    if (next.isEmpty() || (hasModel() && next == modelPath_))
        return false;
    open(next);
    return true;
}

void ModelManager::setError(const QString& error)
{
    if (error == error_)
        return;
    error_ = error;
    emit errorChanged();
}
