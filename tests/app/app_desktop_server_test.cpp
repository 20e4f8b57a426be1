// Settings -> Server on the real engine (LocalChatEngine, stories260K), driven as a user does
// through the settings model and checked with a real HTTP client: off by default; on, the
// open model answers at 127.0.0.1:PORT and the live panel's figures count the request; the
// app's own reply and server requests run on the one model in turns, each with the text it
// has alone; a new port moves the server, a port in use is reported and left when changed,
// a model load stops the server and starts it on the new model, a changed reply default
// restarts it (a change of how the app looks or stores its own cache does not), web pages may
// call it only when the user lets them, and off stops it.
#include <QFile>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>

#include <future>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "app_test_env.h"
#include "chat/local_chat_engine.h"
#include "shared_data.h"

namespace {

int freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

// POST /v1/completions at temperature 0; the reply's text, or "HTTP <status>", "error" (an
// error object) or "no answer".
QString complete(int port, const std::string& prompt, int maxTokens)
{
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(120, 0);
    const nlohmann::json body = {{"prompt", prompt}, {"max_tokens", maxTokens}, {"temperature", 0}};
    const httplib::Result result = client.Post("/v1/completions", body.dump(), "application/json");
    if (!result)
        return QStringLiteral("no answer");
    if (result->status != 200)
        return QStringLiteral("HTTP %1").arg(result->status);
    // A reply that fails midway is an error object inside the 200 (the man page says why).
    const nlohmann::json reply = nlohmann::json::parse(result->body);
    if (!reply.contains("choices"))
        return QStringLiteral("error");
    return QString::fromStdString(reply["choices"][0]["text"].get<std::string>());
}

// POST /v1/completions at temperature 0 leaving max_tokens to the server's default: the
// tokens the reply generated, or -1 when there was no such reply.
int defaultLengthReplyTokens(int port, const std::string& prompt)
{
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(120, 0);
    const nlohmann::json body = {{"prompt", prompt}, {"temperature", 0}};
    const httplib::Result result = client.Post("/v1/completions", body.dump(), "application/json");
    if (!result || result->status != 200)
        return -1;
    const nlohmann::json reply = nlohmann::json::parse(result->body);
    return reply.contains("usage") ? reply["usage"]["completion_tokens"].get<int>() : -1;
}

// GET /v1/models: the id of the model served, or "" when nothing answers.
QString servedModel(int port)
{
    httplib::Client client("127.0.0.1", port);
    client.set_connection_timeout(2, 0);
    const httplib::Result result = client.Get("/v1/models");
    if (!result || result->status != 200)
        return {};
    return QString::fromStdString(nlohmann::json::parse(result->body)["data"][0]["id"].get<std::string>());
}

bool waitForState(DesktopServer& server, const QString& state, int ms = 20000)
{
    return QTest::qWaitFor([&] { return server.state() == state; }, ms);
}

} // namespace

class DesktopServerTest : public QObject {
    Q_OBJECT

private:
    std::filesystem::path ggufPath_, hfPath_;
    AppTestEnv env_;
    std::unique_ptr<DesktopApp> app_;
    int port_ = 0;

    bool openModel(const std::filesystem::path& path)
    {
        QSignalSpy loaded(&app_->models(), &ModelManager::modelChanged);
        app_->models().open(QString::fromStdString(path.string()));
        return loaded.wait(30000) && app_->models().error().isEmpty();
    }

private slots:
    void initTestCase()
    {
        PYRAMID_REQUIRE_SHARED(gguf, "models/stories260K.gguf");
        PYRAMID_REQUIRE_SHARED(hf, "models/stories260K-hf");
        ggufPath_ = gguf;
        hfPath_ = hf;
        app_ = std::make_unique<DesktopApp>(std::make_unique<pyramid::LocalChatEngine>(), *env_.settings,
                                            DesktopApp::Paths{env_.database, QStringList{env_.modelsDir}});
        QVERIFY(openModel(ggufPath_));
        QVERIFY(app_->settings().setValue("temperature", "0"));
        QVERIFY(app_->settings().setValue("max_new_tokens", "24"));
        port_ = freePort();
        QVERIFY(app_->settings().setValue("serve_port", QString::number(port_)));
    }

    void offByDefault()
    {
        QCOMPARE(app_->server().state(), QStringLiteral("off"));
        QVERIFY(app_->server().address().isEmpty());
        QVERIFY(servedModel(port_).isEmpty());
    }

    void servesTheOpenModelAndCountsItsRequests()
    {
        DesktopServer& server = app_->server();
        QVERIFY(app_->settings().setValue("serve", "on"));
        QVERIFY(waitForState(server, QStringLiteral("serving")));
        QCOMPARE(server.address(), QStringLiteral("http://127.0.0.1:%1").arg(port_));
        QVERIFY(server.statusText().contains(server.address()));
        QCOMPARE(servedModel(port_), QStringLiteral("stories260K"));

        const QString text = complete(port_, "Once upon a time", 8);
        QVERIFY2(!text.isEmpty() && !text.startsWith(QLatin1String("HTTP")) && text != QLatin1String("no answer"),
                 qPrintable(text));
        QVERIFY(QTest::qWaitFor([&] { return server.repliesServed() == 1; }, 5000));
        QCOMPARE(server.runningSequences(), 0);
        QVERIFY(server.activityText().contains(QLatin1String("1 answered")));
    }

    void theAppAndTheServerTakeTurnsOnOneModel()
    {
        DesktopServer& server = app_->server();
        QVERIFY(waitForState(server, QStringLiteral("serving")));
        const std::string prompts[] = {"Once upon a time", "The little dog"};
        QString alone[2];
        for (int i = 0; i < 2; ++i)
            alone[i] = complete(port_, prompts[i], 16);

        // The app's reply and two server requests at once.
        QSignalSpy finished(&app_->chat(), &ChatController::replyFinished);
        app_->conversations().createConversation();
        QVERIFY(app_->chat().send("Lily went to the park."));
        std::future<QString> requests[2];
        for (int i = 0; i < 2; ++i)
            requests[i] = std::async(std::launch::async, [&, i] { return complete(port_, prompts[i], 16); });
        QVERIFY(finished.wait(120000));
        QVERIFY2(app_->chat().error().isEmpty(), qPrintable(app_->chat().error()));
        for (int i = 0; i < 2; ++i) {
            QVERIFY(QTest::qWaitFor([&] { return requests[i].wait_for(std::chrono::seconds(0)) == std::future_status::ready; },
                                    120000));
            QCOMPARE(requests[i].get(), alone[i]);
        }
    }

    // A setting a request's reply is made with restarts the server with it; one that only says
    // how the app looks or stores its own cache leaves the server as it is.
    void aNewReplyDefaultRestartsTheServerOtherSettingsDoNot()
    {
        DesktopServer& server = app_->server();
        QCOMPARE(server.state(), QStringLiteral("serving"));
        QVERIFY(defaultLengthReplyTokens(port_, "Once upon a time") > 5);  // so 5 below is the limit's

        QSignalSpy states(&server, &DesktopServer::stateChanged);
        QVERIFY(app_->settings().setValue("theme", "dark"));
        QVERIFY(app_->settings().setValue("kv_precision_values", "q8"));
        QTest::qWait(1500);  // several polls
        QCOMPARE(states.count(), 0);

        QVERIFY(app_->settings().setValue("max_new_tokens", "5"));
        QVERIFY(waitForState(server, QStringLiteral("stopping"), 5000));
        QVERIFY(waitForState(server, QStringLiteral("serving")));
        QCOMPARE(defaultLengthReplyTokens(port_, "Once upon a time"), 5);
        QVERIFY(app_->settings().setValue("max_new_tokens", "24"));
        QVERIFY(waitForState(server, QStringLiteral("serving")));
    }

    // Web pages (CORS) only when the user lets them: the setting restarts the server with the
    // header on every answer and a browser's preflight answered; off again, neither.
    void webPagesOnlyWhenLetIn()
    {
        DesktopServer& server = app_->server();
        QCOMPARE(server.state(), QStringLiteral("serving"));
        const auto allowed = [&](const char* method) {
            httplib::Client client("127.0.0.1", port_);
            const httplib::Headers origin = {{"Origin", "http://localhost:3000"}};
            const httplib::Result result = std::string(method) == "OPTIONS" ? client.Options("/v1/chat/completions", origin)
                                                                            : client.Get("/health", origin);
            return result ? QString::fromStdString(result->get_header_value("Access-Control-Allow-Origin")) +
                                QStringLiteral(" %1").arg(result->status)
                          : QStringLiteral("no answer");
        };
        QCOMPARE(allowed("GET"), QStringLiteral(" 200"));
        QVERIFY(app_->settings().setValue("serve_web_pages", "on"));
        QVERIFY(waitForState(server, QStringLiteral("stopping"), 5000));
        QVERIFY(waitForState(server, QStringLiteral("serving")));
        QCOMPARE(allowed("GET"), QStringLiteral("* 200"));
        QCOMPARE(allowed("OPTIONS"), QStringLiteral("* 204"));
        QVERIFY(app_->settings().setValue("serve_web_pages", "off"));
        QVERIFY(waitForState(server, QStringLiteral("stopping"), 5000));
        QVERIFY(waitForState(server, QStringLiteral("serving")));
        QCOMPARE(allowed("GET"), QStringLiteral(" 200"));
    }

    void aNewPortMovesTheServer()
    {
        DesktopServer& server = app_->server();
        const int other = freePort();
        QVERIFY(app_->settings().setValue("serve_port", QString::number(other)));
        QVERIFY(QTest::qWaitFor([&] { return server.state() == QLatin1String("serving") &&
                                             server.address().endsWith(QString::number(other)); }, 20000));
        QCOMPARE(servedModel(other), QStringLiteral("stories260K"));
        QVERIFY(servedModel(port_).isEmpty());
        port_ = other;
    }

    void aPortInUseIsReportedUntilChanged()
    {
        DesktopServer& server = app_->server();
        QTcpServer squatter;
        QVERIFY(squatter.listen(QHostAddress::LocalHost, 0));
        QVERIFY(app_->settings().setValue("serve_port", QString::number(squatter.serverPort())));
        QVERIFY(waitForState(server, QStringLiteral("failed")));
        QVERIFY(server.statusText().contains(QString::number(squatter.serverPort())));
        port_ = freePort();
        QVERIFY(app_->settings().setValue("serve_port", QString::number(port_)));
        QVERIFY(waitForState(server, QStringLiteral("serving")));
        QCOMPARE(servedModel(port_), QStringLiteral("stories260K"));
    }

    void aModelLoadMovesTheServerToTheNewModel()
    {
        DesktopServer& server = app_->server();
        QVERIFY(openModel(hfPath_));
        QVERIFY(waitForState(server, QStringLiteral("serving")));
        QVERIFY(server.statusText().contains(QLatin1String("stories260K-hf")));
        // A Hugging Face folder is served under its name.
        QCOMPARE(servedModel(port_), QStringLiteral("stories260K-hf"));
        const QString text = complete(port_, "Once upon a time", 4);
        QVERIFY2(!text.startsWith(QLatin1String("HTTP")) && text != QLatin1String("no answer"), qPrintable(text));
    }

    void offStopsIt()
    {
        DesktopServer& server = app_->server();
        QVERIFY(app_->settings().setValue("serve", "off"));
        QVERIFY(waitForState(server, QStringLiteral("off")));
        QVERIFY(servedModel(port_).isEmpty());
        QCOMPARE(server.activityText(), server.statusText());
    }

    void theAppQuitsWhileARequestRuns()
    {
        QVERIFY(app_->settings().setValue("serve", "on"));
        QVERIFY(waitForState(app_->server(), QStringLiteral("serving")));
        auto request = std::async(std::launch::async, [port = port_] { return complete(port, "Once upon a time", 200); });
        QTest::qWait(100);
        app_.reset();  // the server's stop ends the request; nothing waits forever
        QCOMPARE(request.wait_for(std::chrono::seconds(30)), std::future_status::ready);
        request.get();
    }
};

QTEST_MAIN(DesktopServerTest)
#include "app_desktop_server_test.moc"
