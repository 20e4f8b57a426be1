#pragma once
// Which model is open: opening a GGUF file or a Hugging Face folder (with progress and
// cancel), the models found in the search folders, the recently used ones, and load errors,
// which are shown but never fatal (the previous model stays in use). The files found are
// described before they are opened (model_file_info.h); those that are no model are listed
// with the reason and never opened by default.
#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QStringList>
#include <QUrl>
#include <QVariantList>

#include "chat/chat_engine.h"
#include "model/default_model.h"
#include "model_file_info.h"

class ChatController;
class QSettings;
class SettingsModel;

class ModelManager : public QObject {
    Q_OBJECT
    Q_PROPERTY(bool loading READ loading NOTIFY loadingChanged)
    Q_PROPERTY(double progress READ progress NOTIFY progressChanged)
    Q_PROPERTY(QString loadingName READ loadingName NOTIFY loadingChanged)
    Q_PROPERTY(QString error READ error NOTIFY errorChanged)
    Q_PROPERTY(bool hasModel READ hasModel NOTIFY modelChanged)
    Q_PROPERTY(QString modelName READ modelName NOTIFY modelChanged)
    Q_PROPERTY(QString modelPath READ modelPath NOTIFY modelChanged)
    Q_PROPERTY(QString modelSummary READ modelSummary NOTIFY modelChanged)
    Q_PROPERTY(QString backend READ backend NOTIFY modelChanged)
    Q_PROPERTY(QString backendNote READ backendNote NOTIFY modelChanged)
    Q_PROPERTY(QStringList recentModels READ recentModels NOTIFY recentModelsChanged)
    Q_PROPERTY(QStringList availableModels READ availableModels NOTIFY availableModelsChanged)
    // Every .gguf file and model folder in the search folders, as the model menu lists them:
    // {path, name, summary, memory (an estimate at the current settings, the cache in the types
    // the device stores: estimatedKvTypes), usable, problem}.
    Q_PROPERTY(QVariantList modelFiles READ modelFiles NOTIFY availableModelsChanged)

public:
    // The model the app opens when none was opened before (setup fetches it; a chat model with
    // a ChatML template).
    static constexpr const char* kDefaultModelFile = pyramid::kDefaultModelFile.data();

    ModelManager(ChatController& controller, SettingsModel& settings, QSettings& store, QStringList searchDirs,
                 QObject* parent = nullptr);

    // The app data folder's "models" (the one the command-line tools search too) and the
    // shared models folder beside the source checkout.
    static QStringList defaultSearchDirs(const QString& appDataDir, const QString& sharedDir);

    // Accepts a path or a file:// URL (as the file dialogs give). During a load the latest
    // request wins: the current load is cancelled and this model opens after it.
    Q_INVOKABLE void open(const QString& pathOrUrl);
    // The most recent model that still exists, else the default model; nothing if neither is found.
    Q_INVOKABLE void openInitial();
    Q_INVOKABLE void cancel();  // also drops a model waiting to open after the current one
    Q_INVOKABLE void rescan();
    Q_INVOKABLE void clearError();
    Q_INVOKABLE QString displayName(const QString& path) const;  // the file or folder name
    // The first search folder (the user's), made if it is missing, for the file manager: where
    // models are put to be found.
    Q_INVOKABLE QUrl modelsFolder() const;

    QString defaultModelPath() const;  // empty when none of the search folders has one

    bool loading() const { return !loadingPath_.isEmpty(); }
    double progress() const { return progress_; }
    QString loadingName() const { return displayName(loadingPath_); }
    QString error() const { return error_; }
    bool hasModel() const { return !modelPath_.isEmpty(); }
    QString modelName() const;
    QString modelPath() const { return modelPath_; }
    QString modelSummary() const;
    QString backend() const;  // where the model runs, in the user's language (device_text.h)
    QString backendNote() const { return QString::fromStdString(info_.backend_note); }
    QStringList recentModels() const { return recent_; }
    QStringList availableModels() const { return available_; }  // the usable ones
    QVariantList modelFiles() const { return modelFiles_; }
    // The cache types of the settings as the device the settings run on stores them: a GPU
    // (the device setting "cuda", or "auto" where the open model runs on one) keeps 8 and 4
    // bits and its own half precision for f16 and f32; the CPU stores each as named.
    pyramid::KvTypes estimatedKvTypes() const;

signals:
    void loadingChanged();
    void progressChanged();
    void errorChanged();
    void modelChanged();
    void recentModelsChanged();
    void availableModelsChanged();

private:
    void onLoaded(const pyramid::ModelInfo& info);
    void onFailed(const QString& message, bool modelKept);
    void setError(const QString& error);
    void finishLoading();
    // `anotherFollows`: nextPath_ opens next, so a model let go for this load is not reopened.
    void stopLoading(bool anotherFollows = false);
    bool openNext();  // opens the model requested during the last load; false when none was

    ChatController& controller_;
    SettingsModel& settings_;
    QSettings& store_;
    QStringList searchDirs_;
    QStringList recent_;
    QStringList available_;
    QVariantList modelFiles_;  // what the last rescan found, usable or not
    // Probes by path, kept while the file's size and time are unchanged (rescan runs at every
    // opening of the menu).
    struct Probe {
        qint64 size = -1;
        QDateTime modified;
        ModelFileInfo info;
    };
    QHash<QString, Probe> probes_;
    QString loadingPath_;
    bool cancelRequested_ = false;
    QString nextPath_;  // requested while loadingPath_ loaded: opens when that load has ended
    double progress_ = 0;
    QString error_;
    QString modelPath_;
    pyramid::ModelInfo info_;
    QStringList initialCandidates_;  // openInitial's models still to try when the current one fails
    QStringList initialFailures_;    // what failed on the way
};
