// The child process of app_crash_safety_test: the app's storage path (DesktopApp, its
// ChatController and ChatStore) chatting with a fake engine that streams slowly, turn after
// turn, until it is killed. It reports on stdout, one line each, flushed at once:
//   stored <id> <role> <text>   a message is in the database (the write has returned)
//   streaming <turn>            the reply of that turn has shown its first text
// Every fourth turn starts a new conversation, so conversations are created and named too.
// SIGTERM, SIGINT and SIGHUP quit it as they quit the app (quit_on_signals.h).
//
// Usage: app_crash_writer <database> <settings.ini> <models folder> [ms per piece (default 3)]
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QSettings>
#include <QTimer>
#include <cstdio>

#include "desktop_app.h"
#include "fake_chat_engine.h"
#include "quit_on_signals.h"

namespace {

void report(const QString& line)
{
    std::fputs(qPrintable(line + QLatin1Char('\n')), stdout);
    std::fflush(stdout);
}

void reportStored(const StoredMessage& m)
{
    report(QStringLiteral("stored %1 %2 %3").arg(m.id).arg(roleName(m.role), m.text));
}

} // namespace

int main(int argc, char* argv[])
{
    pyramid::StopSignals stopSignals;  // before any thread, as in the app's main
    QCoreApplication qapp(argc, argv);
    const pyramid::StopSignals::Handling quitting = quitOnStopSignals(stopSignals, qapp);
    const QStringList args = qapp.arguments();
    if (args.size() != 4 && args.size() != 5) {
        std::fprintf(stderr, "usage: app_crash_writer <database> <settings.ini> <models folder> [ms per piece]\n");
        return 2;
    }
    QDir().mkpath(args[3]);
    const QString modelPath = QDir(args[3]).filePath(QStringLiteral("writer.gguf"));
    QFile modelFile(modelPath);
    if (!modelFile.open(QIODevice::WriteOnly) || modelFile.write("GGUF") != 4)
        return 2;
    modelFile.close();

    FakeScript script;
    script.pieces.clear();
    for (int i = 0; i < 30; ++i)
        script.pieces.push_back(" w" + std::to_string(i));
    script.delay = std::chrono::milliseconds(args.size() == 5 ? args[4].toInt() : 3);
    QSettings settings(args[2], QSettings::IniFormat);
    DesktopApp app(std::make_unique<FakeChatEngine>(script), settings, DesktopApp::Paths{args[1], {args[3]}});

    int turn = 0;
    bool streamingReported = false;
    const auto nextTurn = [&] {
        ++turn;
        if (turn % 4 == 0)
            app.conversations().createConversation();
        streamingReported = false;
        if (!app.chat().send(QStringLiteral("question %1 of pid %2").arg(turn).arg(QCoreApplication::applicationPid()))) {
            std::fprintf(stderr, "app_crash_writer: could not send turn %d\n", turn);
            QCoreApplication::exit(1);
            return;
        }
        reportStored(app.messages().at(app.messages().count() - 2));  // the question; the reply streams
    };
    QObject::connect(&app.messages(), &QAbstractItemModel::dataChanged, [&] {
        MessageListModel& messages = app.messages();
        if (!streamingReported && messages.streaming() && !messages.at(messages.count() - 1).text.isEmpty()) {
            streamingReported = true;
            report(QStringLiteral("streaming %1").arg(turn));
        }
    });
    const QMetaObject::Connection finished = QObject::connect(&app.chat(), &ChatController::replyFinished, [&] {
        MessageListModel& messages = app.messages();
        if (!app.chat().error().isEmpty() || messages.count() == 0) {
            std::fprintf(stderr, "app_crash_writer: the reply failed: %s\n", qPrintable(app.chat().error()));
            QCoreApplication::exit(1);
            return;
        }
        reportStored(messages.at(messages.count() - 1));
        QTimer::singleShot(0, &app.chat(), nextTurn);
    });
    QObject::connect(&app.models(), &ModelManager::modelChanged, &app.chat(), nextTurn, Qt::SingleShotConnection);
    app.models().open(modelPath);
    const int status = qapp.exec();
    // Quit mid-reply, the app's destruction stores the reply as stopped: no next turn then.
    QObject::disconnect(finished);
    return status;
}
