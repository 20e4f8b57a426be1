#include "desktop_server.h"

#include <QFileInfo>
#include <QLocale>
#include <QMetaObject>
#include <ctime>

#include "api_server.h"
#include "model/model.h"
#include "model_manager.h"
#include "settings_model.h"

namespace {

// Requests that may generate together, and wait beyond them, on a desktop shared with the
// user's own chats: a small batch keeps each step (the app's longest wait) short.
constexpr int kMaxBatch = 4;
constexpr int kMaxQueue = 16;
// Prompt tokens one step reads: a long prompt is read in parts, with the app's turns between.
constexpr int kMaxPromptTokens = 256;

} // namespace

DesktopServer::DesktopServer(pyramid::ChatEngine& engine, SettingsModel& settings, ModelManager& models,
                             QObject* parent)
    : QObject(parent), engine_(engine), settings_(settings), models_(models)
{
    poll_.setInterval(500);
    connect(&poll_, &QTimer::timeout, this, &DesktopServer::poll);
    connect(&settings_, &QAbstractItemModel::dataChanged, this, &DesktopServer::reconcile);
    connect(&settings_, &QAbstractItemModel::modelReset, this, &DesktopServer::reconcile);
    connect(&models_, &ModelManager::modelChanged, this, &DesktopServer::reconcile);
    connect(&models_, &ModelManager::loadingChanged, this, &DesktopServer::reconcile);
    reconcile();
}

DesktopServer::~DesktopServer()
{
    poll_.stop();
    if (closer_.joinable())
        closer_.join();
    server_.reset();
    model_ = {};
}

QString DesktopServer::address() const
{
    return server_ ? QStringLiteral("http://127.0.0.1:%1").arg(servedPort_) : QString();
}

QString DesktopServer::statusText() const
{
    if (state_ == QLatin1String("serving"))
        return tr("Serving %1 at %2").arg(QFileInfo(servedPath_).fileName(), address());
    if (state_ == QLatin1String("waiting"))
        return tr("Starts once a model is open");
    if (state_ == QLatin1String("stopping"))
        return tr("Stopping…");
    if (state_ == QLatin1String("failed"))
        return error_;
    return tr("Not serving");
}

QString DesktopServer::activityText() const
{
    if (state_ != QLatin1String("serving"))
        return statusText();
    QString text = tr("%1 running, %2 waiting, %3 answered").arg(running_).arg(waiting_).arg(served_);
    if (fullKvBytes_ > 0) {
        const QLocale locale;
        text += QLatin1Char('\n') + tr("KV cache %1 (a full one: %2)")
                                       .arg(locale.formattedDataSize(kvBytes_), locale.formattedDataSize(fullKvBytes_));
    }
    return text;
}

DesktopServer::ReplyDefaults DesktopServer::replyDefaults() const
{
    const ChatSettings& s = settings_.current();
    return {settings_.promptFormat(), s.maxNewTokens, s.sampling, s.compression};
}

void DesktopServer::reconcile()
{
    if (closing_)
        return;  // closed() comes back here
    const ChatSettings& s = settings_.current();
    const bool modelReady = models_.hasModel() && !models_.loading();
    if (server_) {
        if (!s.serve || !modelReady || servedPath_ != models_.modelPath() || servedPort_ != s.servePort ||
            servedWebPages_ != s.serveWebPages) {
            stop();
        } else if (servedDefaults_ != replyDefaults()) {
            const pyramid::server::EngineGauges now = server_->metrics().engine();
            if (now.running == 0 && now.waiting == 0)
                stop();  // and start again with the new defaults
        }
        return;
    }
    if (!s.serve)
        setState(QStringLiteral("off"));
    else if (!modelReady)
        setState(QStringLiteral("waiting"));
    else if (state_ != QLatin1String("failed") || servedPath_ != models_.modelPath() || servedPort_ != s.servePort)
        start();  // a port that failed is tried again once the port or the model changes
}

void DesktopServer::start()
{
    const pyramid::SharedModel shared = engine_.shared_model();
    if (!shared.model) {
        setState(QStringLiteral("waiting"));
        return;
    }
    const ChatSettings& s = settings_.current();
    const pyramid::ModelConfig& config = shared.model->config();
    pyramid::server::ApiSettings api;
    const QFileInfo file(models_.modelPath());
    api.model_id = file.completeBaseName().toStdString();
    api.model_bytes = file.isFile() ? static_cast<uint64_t>(file.size()) : 0;  // a folder: not counted
    api.created = static_cast<int64_t>(std::time(nullptr));
    api.n_layers = config.n_layers;
    const ReplyDefaults defaults = replyDefaults();
    api.prompt.format = defaults.format;
    api.prompt.context_length = config.context_length;
    api.prompt.default_max_tokens = defaults.maxTokens;
    api.sampling = defaults.sampling;
    api.compression = defaults.compression;
    if (s.serveWebPages)
        api.cors_origin = "*";
    pyramid::server::ServingOptions serving;
    serving.batch.max_batch = kMaxBatch;
    serving.batch.max_prompt_tokens = kMaxPromptTokens;
    serving.max_queue = kMaxQueue;
    serving.turns = shared.turns;

    servedPath_ = models_.modelPath();
    servedPort_ = s.servePort;
    servedWebPages_ = s.serveWebPages;
    try {
        server_ = std::make_shared<pyramid::server::ApiServer>(shared.model->backend(), shared.model->tokenizer(), api,
                                                               serving,
                                                               pyramid::server::ListenAddress{"127.0.0.1", s.servePort});
    } catch (const std::exception&) {
        setState(QStringLiteral("failed"),
                 tr("Cannot serve on port %1: another program uses it, or it is not allowed. Choose another port.")
                     .arg(s.servePort));
        return;
    }
    model_ = shared;
    servedDefaults_ = defaults;
    running_ = waiting_ = 0;
    served_ = kvBytes_ = fullKvBytes_ = 0;
    emit activityChanged();
    setState(QStringLiteral("serving"));
    poll_.start();
}

void DesktopServer::stop()
{
    poll_.stop();
    closing_ = true;
    setState(QStringLiteral("stopping"));
    if (closer_.joinable())
        closer_.join();  // done already: closing_ was false
    closer_ = std::thread([this, server = std::move(server_), model = std::move(model_)]() mutable {
        server.reset();  // ends its requests, then lets their caches go in a turn of the model
        model = {};
        QMetaObject::invokeMethod(this, [this] { closed(); }, Qt::QueuedConnection);
    });
}

void DesktopServer::closed()
{
    closing_ = false;
    closer_.join();
    running_ = waiting_ = 0;
    kvBytes_ = fullKvBytes_ = 0;
    emit activityChanged();
    setState(QStringLiteral("off"));
    reconcile();
}

void DesktopServer::poll()
{
    if (!server_)
        return;
    const pyramid::server::EngineGauges gauges = server_->metrics().engine();
    const qint64 served = server_->metrics().replies_total();
    if (gauges.running != running_ || gauges.waiting != waiting_ || served != served_ ||
        static_cast<qint64>(gauges.kv_bytes) != kvBytes_ || static_cast<qint64>(gauges.full_kv_bytes) != fullKvBytes_) {
        running_ = gauges.running;
        waiting_ = gauges.waiting;
        served_ = served;
        kvBytes_ = static_cast<qint64>(gauges.kv_bytes);
        fullKvBytes_ = static_cast<qint64>(gauges.full_kv_bytes);
        emit activityChanged();
    }
    if (servedDefaults_ != replyDefaults())
        reconcile();
}

void DesktopServer::setState(const QString& state, const QString& error)
{
    if (state == state_ && error == error_)
        return;
    state_ = state;
    error_ = error;
    emit stateChanged();
    emit activityChanged();  // activityText says the state while not serving
}
