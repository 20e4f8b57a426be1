#pragma once
// The app's objects and how they are wired: one store, the models the window binds to, the
// controller that talks to the engine, and the model manager. main.cpp builds one with the
// real engine; tests build one with a fake engine and their own paths.
#include <QNetworkAccessManager>
#include <QStringList>
#include <memory>
#include <optional>

#include "app_theme.h"

#include "cache_stats_model.h"
#include "chat_controller.h"
#include "chat_store.h"
#include "clipboard.h"
#include "conversation_list_model.h"
#include "desktop_server.h"
#include "message_list_model.h"
#include "model_catalogue.h"
#include "model_manager.h"
#include "settings_model.h"

class QQmlApplicationEngine;
class QSettings;

class DesktopApp {
public:
    struct Paths {
        QString database;             // the SQLite file of the conversations
        QStringList modelSearchDirs;  // where models are looked for
    };

    // Throws pyramid::Error when the database cannot be opened.
    DesktopApp(std::unique_ptr<pyramid::ChatEngine> engine, QSettings& settings, const Paths& paths);

    // Loads the main window into `qml`, handing it this app's objects. False if QML failed.
    bool showWindow(QQmlApplicationEngine& qml);

    ChatStore& store() { return store_; }
    ConversationListModel& conversations() { return conversations_; }
    MessageListModel& messages() { return messages_; }
    SettingsModel& settings() { return settings_; }
    CacheStatsModel& stats() { return stats_; }
    ChatController& chat() { return chat_; }
    ModelManager& models() { return models_; }
    ModelCatalogue& catalogue() { return catalogue_; }
    DesktopServer& server() { return *server_; }

private:
    // Declared in build order; destroyed in reverse, so the controller stops its thread while
    // the models it writes to still exist.
    pyramid::ChatEngine* engine_;  // the chat controller's
    ChatStore store_;
    ConversationListModel conversations_;
    MessageListModel messages_;
    SettingsModel settings_;
    CacheStatsModel stats_;
    // Made once the model manager exists; let go after the controller, whose engine's reply in
    // progress would otherwise hold the model that the server's stop waits its turn for.
    std::unique_ptr<DesktopServer> server_;
    ChatController chat_;
    ModelManager models_;
    QNetworkAccessManager network_;
    ModelCatalogue catalogue_;
    Clipboard clipboard_;
    std::optional<AppTheme> theme_;  // with a GUI application only (not in the model tests)
};
