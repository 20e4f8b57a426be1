// The whole app on the real engine: the QML window (offscreen), LocalChatEngine with
// stories260K, one message and its streamed reply, what was stored, and the per-layer panel
// showing a pyramid under PyramidInfer and equal layers under the full cache; the file
// dialogs open.
#include <QFile>
#include <QQmlApplicationEngine>
#include <QQmlContext>
#include <QQuickItem>
#include <QQuickWindow>
#include <QSignalSpy>
#include <QtQuickTest/quicktest.h>
#include <QTest>

#include "app_test_env.h"
#include "chat/local_chat_engine.h"
#include "shared_data.h"

namespace {

std::vector<int> layerLengths(CacheStatsModel& stats)
{
    std::vector<int> out;
    for (int layer = 0; layer < stats.rowCount(); ++layer)
        out.push_back(stats.layerLength(layer));
    return out;
}

QString describe(const std::vector<int>& lengths, int full)
{
    QStringList parts;
    for (int l : lengths)
        parts.push_back(QString::number(l));
    return QStringLiteral("[%1] of %2").arg(parts.join(", ")).arg(full);
}

// Every item drawn under `root` (QML items' QObject parents do not follow the visual tree).
QList<QQuickItem*> visualTree(QQuickItem* root)
{
    QList<QQuickItem*> out{root};
    for (QQuickItem* child : root->childItems())
        out += visualTree(child);
    return out;
}

void typeText(QWindow* window, const char* text)
{
    for (; *text; ++text)
        QTest::keyClick(window, *text);
}

// Qt's messages while a test runs, for the ones QML logs instead of reporting as warnings.
QStringList* capturedMessages = nullptr;

void captureMessage(QtMsgType, const QMessageLogContext&, const QString& message)
{
    if (capturedMessages)
        capturedMessages->push_back(message);
}

// The whole app on the real engine, its window shown offscreen.
struct ShownApp {
    AppTestEnv env;
    DesktopApp app{std::make_unique<pyramid::LocalChatEngine>(), *env.settings,
                   DesktopApp::Paths{env.database, QStringList{env.modelsDir}}};
    QQmlApplicationEngine qml;

    // The main window once exposed; null when it did not load.
    QQuickWindow* show()
    {
        if (!app.showWindow(qml))
            return nullptr;
        auto* window = qobject_cast<QQuickWindow*>(qml.rootObjects().front());
        return window && QTest::qWaitForWindowExposed(window) ? window : nullptr;
    }
};

} // namespace

class EndToEndTest : public QObject {
    Q_OBJECT

private slots:
    void chatsWithTheRealEngine()
    {
        PYRAMID_REQUIRE_SHARED(modelPath, "models/stories260K.gguf");
        PYRAMID_REQUIRE_SHARED(textPath, "data/tinystories_val_prefix.txt");
        QFile textFile(QString::fromStdString(textPath.string()));
        QVERIFY(textFile.open(QIODevice::ReadOnly));
        // A few hundred tokens: long enough for PyramidInfer to drop entries in deeper layers.
        const QString prompt = QString::fromUtf8(textFile.read(700)).section(QLatin1Char(' '), 0, -2);

        ShownApp shown;
        DesktopApp& app = shown.app;
        QStringList qmlWarnings;
        connect(&shown.qml, &QQmlApplicationEngine::warnings, this, [&](const QList<QQmlError>& warnings) {
            for (const QQmlError& w : warnings)
                qmlWarnings.push_back(w.toString());
        });
        QQuickWindow* window = shown.show();
        QVERIFY(window);

        QSignalSpy loaded(&app.models(), &ModelManager::modelChanged);
        app.models().open(QString::fromStdString(modelPath.string()));
        QVERIFY(loaded.wait(30000));
        QVERIFY2(app.models().error().isEmpty(), qPrintable(app.models().error()));
        QCOMPARE(app.settings().promptFormat(), pyramid::PromptFormat::Raw);  // a base model, automatically
        QVERIFY(app.settings().setValue("temperature", "0"));
        QVERIFY(app.settings().setValue("max_new_tokens", "24"));
        QVERIFY(app.settings().setValue("policy", "pyramid"));

        QSignalSpy finished(&app.chat(), &ChatController::replyFinished);
        QSignalSpy streamed(&app.messages(), &QAbstractItemModel::dataChanged);
        QVERIFY(app.chat().send(prompt));
        QVERIFY(finished.wait(120000));
        QVERIFY2(app.chat().error().isEmpty(), qPrintable(app.chat().error()));
        QVERIFY(!streamed.isEmpty());

        // Stored: the prompt and a finished, non-empty reply.
        const QVector<StoredMessage> stored = app.store().messages(app.conversations().currentId());
        QCOMPARE(stored.size(), 2);
        QCOMPARE(stored[0].text, prompt.trimmed());
        QCOMPARE(stored[1].role, pyramid::ChatRole::Assistant);
        QVERIFY(!stored[1].text.trimmed().isEmpty());
        QVERIFY(!stored[1].stopped());
        QVERIFY(stored[1].stats.generatedTokens > 0);
        QCOMPARE(app.messages().at(1).text, stored[1].text);

        // The panel: one bar per layer, non-increasing with depth, deeper layers shorter.
        const int layers = 5;  // stories260K
        CacheStatsModel& stats = app.stats();
        QCOMPARE(stats.rowCount(), layers);
        const std::vector<int> pyramid = layerLengths(stats);
        const QString shape = describe(pyramid, stats.fullLength());
        qInfo("pyramid policy: layer lengths %s, %s", qPrintable(shape), qPrintable(stats.savingText()));
        QVERIFY2(stats.fullLength() > 64, qPrintable(shape));
        for (int layer = 1; layer < layers; ++layer)
            QVERIFY2(pyramid[layer] <= pyramid[layer - 1], qPrintable(shape));
        QVERIFY2(pyramid.back() < pyramid.front(), qPrintable(shape));
        QVERIFY2(pyramid.front() <= stats.fullLength(), qPrintable(shape));
        QVERIFY(stats.savingFraction() > 0);
        auto* bars = window->findChild<QQuickItem*>(QStringLiteral("layerBars"));
        QVERIFY(bars);
        QCOMPARE(bars->property("count").toInt(), layers);

        // The full cache keeps every entry in every layer.
        QVERIFY(app.settings().setValue("policy", "full"));
        QVERIFY(app.chat().regenerate());
        QVERIFY(finished.wait(120000));
        QVERIFY2(app.chat().error().isEmpty(), qPrintable(app.chat().error()));
        const std::vector<int> full = layerLengths(stats);
        qInfo("full policy: layer lengths %s", qPrintable(describe(full, stats.fullLength())));
        QCOMPARE(static_cast<int>(full.size()), layers);
        for (int length : full)
            QVERIFY2(length == stats.fullLength(), qPrintable(describe(full, stats.fullLength())));
        QCOMPARE(stats.savingFraction(), 0.0);
        QCOMPARE(app.store().messages(app.conversations().currentId()).size(), 2);

        // Labels show stored and model text (titles, notices, errors, model names) as typed:
        // rich text would render markup from it and fetch the images it names.
        int labels = 0;
        for (QQuickItem* item : visualTree(window->contentItem())) {
            const QQmlContext* context = QQmlEngine::contextForObject(item);
            if (!item->inherits("QQuickLabel") || !context || !context->baseUrl().toString().startsWith("qrc:/pyramidchat/"))
                continue;  // the style's own labels show our fixed texts
            ++labels;
            QVERIFY2(item->property("textFormat").toInt() == Qt::PlainText, qPrintable(item->property("text").toString()));
        }
        QVERIFY2(labels > 10, qPrintable(QString::number(labels)));

        QVERIFY2(qmlWarnings.isEmpty(), qPrintable(qmlWarnings.join('\n')));
    }

    // The keyboard reaches the message field at start, after Send is clicked (it hides while
    // the reply runs) and after the reply.
    void typingGoesToTheMessageField()
    {
        PYRAMID_REQUIRE_SHARED(modelPath, "models/stories260K.gguf");
        ShownApp shown;
        DesktopApp& app = shown.app;
        QQuickWindow* window = shown.show();
        QVERIFY(window);
        window->requestActivate();
        QVERIFY(QTest::qWaitForWindowActive(window));
        QSignalSpy loaded(&app.models(), &ModelManager::modelChanged);
        app.models().open(QString::fromStdString(modelPath.string()));
        QVERIFY(loaded.wait(30000));
        QVERIFY(app.settings().setValue("max_new_tokens", "4"));

        QQuickItem *input = nullptr, *send = nullptr;
        for (QQuickItem* item : visualTree(window->contentItem())) {
            if (item->objectName() == QLatin1String("composerInput"))
                input = item;
            if (item->inherits("QQuickButton") && item->property("text").toString() == QLatin1String("Send"))
                send = item;
        }
        QVERIFY(input && send);
        typeText(window, "Once upon");
        QCOMPARE(input->property("text").toString(), QStringLiteral("Once upon"));

        // Where Send is once the window has laid itself out again (a busy machine is slow to).
        QTRY_VERIFY(send->isEnabled());
        QVERIFY(QQuickTest::qWaitForPolish(window));
        QSignalSpy finished(&app.chat(), &ChatController::replyFinished);
        QTest::mouseClick(window, Qt::LeftButton, Qt::NoModifier,
                          send->mapToScene(QPointF(send->width() / 2, send->height() / 2)).toPoint());
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0, 30000);  // it may end within the click
        typeText(window, "a time");
        QCOMPARE(input->property("text").toString(), QStringLiteral("a time"));
    }

    // Without a native dialog (offscreen, KDE, tiling window managers) Qt draws its own, whose
    // QML modules must be installed: a missing one left the dialog closed or crashed the app.
    void theFileDialogsOpen()
    {
        ShownApp shown;
        DesktopApp& app = shown.app;
        QQuickWindow* window = shown.show();
        QVERIFY(window);

        QStringList messages;
        capturedMessages = &messages;
        const QtMessageHandler previous = qInstallMessageHandler(captureMessage);
        for (const char* name : {"modelFileDialog", "modelFolderDialog", "exportDialog"}) {
            QObject* dialog = window->findChild<QObject*>(QString::fromLatin1(name));
            QVERIFY2(dialog, name);
            QMetaObject::invokeMethod(dialog, "open");
            QTRY_VERIFY2(dialog->property("visible").toBool(), name);
            QMetaObject::invokeMethod(dialog, "reject");
            QTRY_VERIFY2(!dialog->property("visible").toBool(), name);
        }
        qInstallMessageHandler(previous);
        capturedMessages = nullptr;
        QVERIFY2(messages.filter(QStringLiteral("is not installed")).isEmpty(), qPrintable(messages.join('\n')));
    }
};

QTEST_MAIN(EndToEndTest)
#include "app_end_to_end_test.moc"
