#pragma once
// Settings -> Server: while "Serve this model on localhost" is on and a model is open, other
// programs on this computer reach that model over the OpenAI-compatible API of pyramid-server
// (app/server/api_server.h) at http://127.0.0.1:PORT. It is the very model the conversations
// use (ChatEngine::shared_model), run in turns with them: one of the app's replies is one turn,
// one step of the server's batch another, so the app's own reply waits at most one step and
// server requests wait while it runs. Requests batch among themselves as in pyramid-server.
//
// Follows the settings and the model manager. A model load stops the server (the memory may be
// needed) and it starts again on the new model once loaded. A new port restarts it at once;
// new reply settings (sampling, compression, prompt format, reply length: the defaults of the
// requests) restart it once no request is open, so none is cut short. Stopping ends open
// requests after their step and lets the model go in a turn; it runs on a thread of its own,
// because the UI thread never waits for a reply.
//
// The live panel shows state, address and the activity figures, refreshed twice a second.
#include <QObject>
#include <QString>
#include <QTimer>
#include <memory>
#include <thread>
#include <vector>

#include "chat/chat_engine.h"
#include "chat/prompt_format.h"
#include "generate/sampling_params.h"
#include "kv/compression_config.h"

class ModelManager;
class SettingsModel;

namespace pyramid::server {
class ApiServer;
}

class DesktopServer : public QObject {
    Q_OBJECT
    // "off", "waiting" (on, but no model is open yet), "serving", "stopping" or "failed"
    Q_PROPERTY(QString state READ state NOTIFY stateChanged)
    Q_PROPERTY(QString address READ address NOTIFY stateChanged)  // "http://127.0.0.1:8080" while serving
    Q_PROPERTY(QString statusText READ statusText NOTIFY stateChanged)  // one line for the user
    Q_PROPERTY(int runningSequences READ runningSequences NOTIFY activityChanged)
    Q_PROPERTY(int waitingRequests READ waitingRequests NOTIFY activityChanged)
    Q_PROPERTY(qint64 repliesServed READ repliesServed NOTIFY activityChanged)  // since it started
    Q_PROPERTY(qint64 kvBytes READ kvBytes NOTIFY activityChanged)      // held by the running requests
    Q_PROPERTY(qint64 fullKvBytes READ fullKvBytes NOTIFY activityChanged)  // what full caches would hold
    // The figures above as the live panel shows them, or statusText when not serving.
    Q_PROPERTY(QString activityText READ activityText NOTIFY activityChanged)

public:
    // Starts serving at once when the settings say so and a model is open.
    DesktopServer(pyramid::ChatEngine& engine, SettingsModel& settings, ModelManager& models,
                  QObject* parent = nullptr);
    // Stops and waits for the stop to finish; the engine may be gone by then (the server holds
    // the model and its turns itself).
    ~DesktopServer() override;

    QString state() const { return state_; }
    QString address() const;
    QString statusText() const;
    QString activityText() const;
    int runningSequences() const { return running_; }
    int waitingRequests() const { return waiting_; }
    qint64 repliesServed() const { return served_; }
    qint64 kvBytes() const { return kvBytes_; }
    qint64 fullKvBytes() const { return fullKvBytes_; }

signals:
    void stateChanged();
    void activityChanged();

private:
    // Brings the server in line with the settings and the model: starts, stops or restarts it.
    void reconcile();
    void start();
    void stop();
    void closed();  // on the UI thread once a stop finished
    void poll();
    void setState(const QString& state, const QString& error = {});
    // What a request leaves out is answered with: the server restarts, once idle, when these
    // change, and for nothing else.
    struct ReplyDefaults {
        pyramid::PromptFormat format{};
        int maxTokens = 0;
        pyramid::SamplingParams sampling;
        pyramid::CompressionConfig compression;
        bool operator==(const ReplyDefaults&) const = default;
    };
    ReplyDefaults replyDefaults() const;

    pyramid::ChatEngine& engine_;
    SettingsModel& settings_;
    ModelManager& models_;
    QTimer poll_;

    std::shared_ptr<pyramid::server::ApiServer> server_;
    pyramid::SharedModel model_;  // what server_ runs on, let go after it
    QString servedPath_;          // the model served
    int servedPort_ = 0;
    bool servedWebPages_ = false;
    ReplyDefaults servedDefaults_;  // what it started with
    std::thread closer_;          // a stop in progress
    bool closing_ = false;

    QString state_ = QStringLiteral("off");
    QString error_;
    int running_ = 0;
    int waiting_ = 0;
    qint64 served_ = 0;
    qint64 kvBytes_ = 0;
    qint64 fullKvBytes_ = 0;
};
