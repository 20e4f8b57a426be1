#include "desktop_app.h"

#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QSettings>
#include <QUrl>

DesktopApp::DesktopApp(std::unique_ptr<pyramid::ChatEngine> engine, QSettings& settings, const Paths& paths)
    : engine_(engine.get()),
      store_(paths.database),
      conversations_(store_),
      settings_(settings, store_),
      chat_(std::move(engine), store_, conversations_, messages_, settings_, stats_),
      models_(chat_, settings_, settings, paths.modelSearchDirs),
      catalogue_(network_, models_, paths.modelSearchDirs.value(0))
{
    server_ = std::make_unique<DesktopServer>(*engine_, settings_, models_);
    if (auto* gui = qobject_cast<QGuiApplication*>(QCoreApplication::instance())) {
        theme_.emplace(*gui);
        theme_->apply(settings_.current().theme);
        // Any setting's change: applying the theme in force again is a no-op.
        QObject::connect(&settings_, &QAbstractItemModel::dataChanged, &settings_,
                         [this] { theme_->apply(settings_.current().theme); });
    }
}

bool DesktopApp::showWindow(QQmlApplicationEngine& qml)
{
    // Handed to the window as its required properties: no globals, no context properties.
    const std::pair<const char*, QObject*> objects[] = {
        {"conversations", &conversations_}, {"messages", &messages_}, {"settings", &settings_},
        {"stats", &stats_}, {"chat", &chat_}, {"models", &models_}, {"catalogue", &catalogue_},
        {"clipboard", &clipboard_}, {"server", server_.get()},
    };
    QVariantMap properties;
    for (const auto& [name, object] : objects) {
        QQmlEngine::setObjectOwnership(object, QQmlEngine::CppOwnership);  // this app owns them
        properties.insert(QString::fromLatin1(name), QVariant::fromValue(object));
    }
    qml.setInitialProperties(properties);
    qml.load(QUrl(QStringLiteral("qrc:/pyramidchat/qml/Main.qml")));
    return !qml.rootObjects().isEmpty();
}
