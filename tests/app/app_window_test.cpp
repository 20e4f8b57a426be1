// The whole window (the real QML, offscreen) on the app's C++ models and the fake engine,
// driven as a user drives it: the export dialog's flow, drafts that stay with their
// conversation, the cursor after "Edit last" and Ctrl+End, the rename field inside its dialog,
// "Reset all" asking first, the refused setting framed in red, the PyramidInfer group's
// note under another policy and the model menu's entries (issue 38).
#include <QFile>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QSignalSpy>
#include <QTest>

#include "app_test_env.h"
#include "code_highlighter.h"

namespace {

// Every item drawn under `root` (QML items' QObject parents do not follow the visual tree).
QList<QQuickItem*> visualTree(QQuickItem* root)
{
    QList<QQuickItem*> out{root};
    for (QQuickItem* child : root->childItems())
        out += visualTree(child);
    return out;
}

bool isOpen(QObject* popup) { return popup && popup->property("opened").toBool(); }

// The app on the fake engine with a model open, its window shown offscreen.
struct ShownApp {
    AppTestEnv env;
    FakeChatEngine* engine = nullptr;
    std::unique_ptr<DesktopApp> app;
    QQmlApplicationEngine qml;
    QQuickWindow* window = nullptr;

    explicit ShownApp(const FakeScript& script = {})
    {
        app = env.makeReadyApp(&engine, script);
        if (!app->showWindow(qml))
            return;
        window = qobject_cast<QQuickWindow*>(qml.rootObjects().front());
        if (window && !QTest::qWaitForWindowExposed(window))
            window = nullptr;
        if (window) {
            window->requestActivate();
            (void)QTest::qWaitForWindowActive(window);  // best effort: a window manager may keep focus elsewhere
        }
    }

    QObject* find(const char* name) const { return window->findChild<QObject*>(QString::fromLatin1(name)); }
    // The shown item named `name` (delegates and popups are not found by findChild alone).
    QQuickItem* shown(const QString& name) const
    {
        for (QQuickItem* item : visualTree(window->contentItem()->parentItem() ? window->contentItem()->parentItem()
                                                                               : window->contentItem()))
            if (item->objectName() == name && item->isVisible())
                return item;
        return nullptr;
    }
    // The settings dialog, opened; nullptr when it is missing or does not open.
    QObject* openSettings() const
    {
        QObject* settings = find("settingsDialog");
        if (!settings)
            return nullptr;
        QMetaObject::invokeMethod(settings, "open");
        return QTest::qWaitFor([&] { return isOpen(settings); }) ? settings : nullptr;
    }
    QQuickItem* input() const { return shown(QStringLiteral("composerInput")); }
    bool send(const QString& text) const
    {
        QSignalSpy finished(&app->chat(), &ChatController::replyFinished);
        return app->chat().send(text) && finished.wait(10000);
    }
};

void typeText(QWindow* window, const char* text)
{
    for (; *text; ++text)
        QTest::keyClick(window, *text);
}

} // namespace

class WindowTest : public QObject {
    Q_OBJECT

private slots:
    // Item 1: the export starts in the documents folder with the title as the name, writes a
    // new file the dialog names without a scheme, says where it went, and asks before replacing.
    void exportsFromTheDialog()
    {
        ShownApp s;
        QVERIFY(s.window);
        QVERIFY(s.send("Plan the trip"));
        const qint64 id = s.app->conversations().currentId();
        QObject* sidebar = s.find("sidebar");
        QObject* dialog = s.find("exportDialog");
        QVERIFY(sidebar && dialog);
        sidebar->setProperty("actionId", id);
        QMetaObject::invokeMethod(sidebar, "startExport", Q_ARG(QVariant, QStringLiteral("markdown")));
        QTRY_VERIFY(dialog->property("visible").toBool());
        const QUrl suggested = s.app->conversations().suggestedExportFile(id, "markdown");
        QCOMPARE(dialog->property("selectedFile").toUrl().fileName(), QStringLiteral("Plan the trip.md"));
        QCOMPARE(dialog->property("currentFolder").toUrl().adjusted(QUrl::StripTrailingSlash),
                 suggested.adjusted(QUrl::RemoveFilename | QUrl::StripTrailingSlash));
        QCOMPARE(dialog->property("acceptLabel").toString(), QStringLiteral("Export"));
        QMetaObject::invokeMethod(dialog, "reject");

        // What Qt's own dialog gives for a name typed into it: a path, no file:// in front.
        const QString path = s.env.dir.filePath(QStringLiteral("newfile.md"));
        QMetaObject::invokeMethod(sidebar, "exportChosen", Q_ARG(QVariant, QUrl(path)));
        QObject* result = s.find("exportResult");
        QTRY_VERIFY(isOpen(result));
        QCOMPARE(result->property("title").toString(), QStringLiteral("Exported"));
        QCOMPARE(result->property("text").toString(), QStringLiteral("The conversation was saved as %1.").arg(path));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().startsWith("# Plan the trip"));
        file.close();
        QMetaObject::invokeMethod(result, "close");
        QTRY_VERIFY(!isOpen(result));

        // The same name again: nothing is written until the user agrees.
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("kept");
        file.close();
        QMetaObject::invokeMethod(sidebar, "exportChosen", Q_ARG(QVariant, QUrl::fromLocalFile(path)));
        QObject* replace = s.find("replaceDialog");
        QTRY_VERIFY(isOpen(replace));
        QVERIFY(!isOpen(result));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("kept"));
        file.close();
        QMetaObject::invokeMethod(replace, "accept");
        QTRY_VERIFY(isOpen(result));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().startsWith("# Plan the trip"));
        file.close();
        QMetaObject::invokeMethod(result, "close");
        QTRY_VERIFY(!isOpen(result));

        // Imported back: a new conversation on screen with the same messages.
        QVERIFY(s.find("importDialog"));
        QMetaObject::invokeMethod(sidebar, "importChosen", Q_ARG(QVariant, QUrl::fromLocalFile(path)));
        QVERIFY(s.app->conversations().currentId() != id);
        QCOMPARE(s.app->messages().count(), 2);
        QCOMPARE(s.app->messages().at(0).text, QStringLiteral("Plan the trip"));
        QVERIFY(!isOpen(result));
        // A file that is no export says why.
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("shopping list");
        file.close();
        QMetaObject::invokeMethod(sidebar, "importChosen", Q_ARG(QVariant, QUrl::fromLocalFile(path)));
        QTRY_VERIFY(isOpen(result));
        QCOMPARE(result->property("title").toString(), QStringLiteral("Import failed"));
        QVERIFY(result->property("text").toString().contains("does not start with"));
    }

    // Item 2: what is typed stays with its conversation; a reply running elsewhere is said.
    void draftsStayWithTheirConversation()
    {
        FakeScript slow;
        slow.pieces.assign(100, " w");
        slow.delay = std::chrono::milliseconds(20);
        ShownApp s(slow);
        QVERIFY(s.window);
        const qint64 first = s.app->conversations().currentId();
        QQuickItem* input = s.input();
        QVERIFY(input);
        input->forceActiveFocus();
        typeText(s.window, "Tell me a story");
        QTest::keyClick(s.window, Qt::Key_Return);
        QTRY_VERIFY(s.app->chat().busy());
        QCOMPARE(input->property("text").toString(), QString());
        typeText(s.window, "half a thought");

        const qint64 second = s.app->conversations().createConversation();
        QVERIFY(second != first);
        QCOMPARE(input->property("text").toString(), QString());  // Enter here sends nothing of the other's
        QQuickItem* note = s.shown(QStringLiteral("composerNote"));
        QVERIFY(note);
        QVERIFY(note->property("text").toString().contains("another conversation"));
        typeText(s.window, "other");
        QTest::keyClick(s.window, Qt::Key_Return);  // refused while the reply runs: the text stays
        QCOMPARE(input->property("text").toString(), QStringLiteral("other"));
        QCOMPARE(s.app->store().messageCount(second), 0);

        s.app->conversations().setCurrentId(first);
        QCOMPARE(input->property("text").toString(), QStringLiteral("half a thought"));
        QCOMPARE(input->property("cursorPosition").toInt(), 14);
        QVERIFY(!s.shown(QStringLiteral("composerNote")));
        QVERIFY(s.app->messages().streaming());  // the reply is still on its way here
        s.app->conversations().setCurrentId(second);
        QCOMPARE(input->property("text").toString(), QStringLiteral("other"));

        // Stop, from here, ends that reply (the note says whose), stored as stopped in its own.
        QQuickItem* stop = s.shown(QStringLiteral("stopButton"));
        QVERIFY(stop);
        QSignalSpy finished(&s.app->chat(), &ChatController::replyFinished);
        QMetaObject::invokeMethod(stop, "clicked");
        QVERIFY(finished.wait(5000));
        QVERIFY(s.app->store().messages(first).last().stopped());
        QCOMPARE(s.app->store().messageCount(second), 0);
        QVERIFY(!s.shown(QStringLiteral("composerNote")));
    }

    // Item 6: "Edit last" leaves the cursor after the text; Ctrl+End and Ctrl+Home move the
    // cursor in the message box before they scroll the conversation.
    void theCursorGoesWhereTheUserWantsIt()
    {
        ShownApp s;
        QVERIFY(s.window);
        QVERIFY(s.send("Hello there"));
        QQuickItem* input = s.input();
        QQuickItem* editLast = s.shown(QStringLiteral("editLastButton"));
        QVERIFY(input && editLast);
        QTRY_VERIFY(editLast->isEnabled());
        QMetaObject::invokeMethod(editLast, "clicked");
        QVERIFY(s.app->chat().editing());
        QCOMPARE(input->property("text").toString(), QStringLiteral("Hello there"));
        QCOMPARE(input->property("cursorPosition").toInt(), 11);
        typeText(s.window, "!");
        QCOMPARE(input->property("text").toString(), QStringLiteral("Hello there!"));

        input->setProperty("cursorPosition", 0);
        QTest::keyClick(s.window, Qt::Key_End, Qt::ControlModifier);
        QCOMPARE(input->property("cursorPosition").toInt(), 12);
        QTest::keyClick(s.window, Qt::Key_Home, Qt::ControlModifier);
        QCOMPARE(input->property("cursorPosition").toInt(), 0);
    }

    // A message that will not fit is warned of under the message box as it is typed.
    void aMessageTooLongIsWarnedOfBeforeItIsSent()
    {
        ShownApp s;
        QVERIFY(s.window);
        QVERIFY(s.send("Hello"));
        QVERIFY(s.app->settings().setValue("max_new_tokens", "100"));  // the fake's context holds 512
        QQuickItem* input = s.input();
        QVERIFY(!s.shown(QStringLiteral("contextWarning")));
        input->setProperty("text", QString(2000, QLatin1Char('x')));
        QQuickItem* warning = s.shown(QStringLiteral("contextWarning"));
        QVERIFY(warning);
        QCOMPARE(warning->property("text").toString(), s.app->chat().contextWarning());
        input->setProperty("text", QStringLiteral("Short"));
        QVERIFY(!s.shown(QStringLiteral("contextWarning")));
    }

    // A first run with no model (the packages ship none): a welcome says so and offers the
    // file dialog and the models folder; it goes once a model is open.
    void aFirstRunWithoutAModelIsWelcomed()
    {
        AppTestEnv env;
        auto app = env.makeApp();
        QQmlApplicationEngine qml;
        QVERIFY(app->showWindow(qml));
        auto* window = qobject_cast<QQuickWindow*>(qml.rootObjects().front());
        QVERIFY(window && QTest::qWaitForWindowExposed(window));
        const auto shown = [&](const char* name) -> QQuickItem* {
            for (QQuickItem* item : visualTree(window->contentItem()))
                if (item->objectName() == QLatin1String(name) && item->isVisible())
                    return item;
            return nullptr;
        };
        QVERIFY(shown("welcome"));
        // The built-in catalogue's models, those without a digest said to be not verified.
        const auto count = [&](const char* name) {
            int n = 0;
            for (QQuickItem* item : visualTree(window->contentItem()))
                n += item->objectName() == QLatin1String(name) && item->isVisible();
            return n;
        };
        QTRY_COMPARE(count("catalogueEntry"), 3);
        QCOMPARE(count("catalogueUnverified"), 2);
        QQuickItem* open = shown("welcomeOpenModel");
        QVERIFY(open && shown("welcomeModelsFolder"));
        QObject* fileDialog = window->findChild<QObject*>(QStringLiteral("modelFileDialog"));
        QMetaObject::invokeMethod(open, "clicked");
        QTRY_VERIFY(fileDialog->property("visible").toBool());
        QMetaObject::invokeMethod(fileDialog, "reject");
        QSignalSpy loaded(&app->models(), &ModelManager::modelChanged);
        app->models().open(env.makeModelFile(QStringLiteral("tiny.gguf")));
        QVERIFY(loaded.wait(5000));
        QTRY_VERIFY(!shown("welcome"));
    }

    // Item 5: the rename field lies inside its dialog.
    void theRenameFieldFitsItsDialog()
    {
        ShownApp s;
        QVERIFY(s.window);
        QObject* sidebar = s.find("sidebar");
        QObject* dialog = s.find("renameDialog");
        QVERIFY(sidebar && dialog);
        sidebar->setProperty("actionId", s.app->conversations().currentId());
        QMetaObject::invokeMethod(dialog, "open");
        QTRY_VERIFY(isOpen(dialog));
        auto* field = s.shown(QStringLiteral("renameField"));
        QVERIFY(field);
        QVERIFY2(field->width() <= dialog->property("availableWidth").toReal() + 0.5,
                 qPrintable(QStringLiteral("field %1 wide, room for %2")
                                .arg(field->width())
                                .arg(dialog->property("availableWidth").toReal())));
        QVERIFY(field->width() >= 300);  // room for a title
    }

    // The preset box shows the preset in effect (the defaults' recall), "Custom" once a
    // knob is set by hand; Apply is for another preset only, and what it applies is then shown.
    void presetBoxShowsThePresetInEffect()
    {
        ShownApp s;
        QVERIFY(s.window);
        QObject* settings = s.openSettings();
        QVERIFY(settings);
        QQuickItem* choice = s.shown(QStringLiteral("presetChoice"));
        QQuickItem* apply = s.shown(QStringLiteral("presetApply"));
        QVERIFY(choice && apply);
        QCOMPARE(choice->property("displayText").toString(), QStringLiteral("Recall (default)"));
        QVERIFY(!apply->isEnabled());
        QVERIFY(s.app->settings().setValue("prefill_decay_ratio", "0.85"));
        QTRY_COMPARE(choice->property("displayText").toString(), QStringLiteral("Custom"));
        QVERIFY(!apply->isEnabled());
        choice->setProperty("currentIndex", s.app->settings().presetNames().indexOf(QStringLiteral("balanced")));
        QTRY_VERIFY(apply->isEnabled());
        QMetaObject::invokeMethod(apply, "clicked");
        QTRY_COMPARE(s.app->settings().activePreset(), QStringLiteral("balanced"));
        QCOMPARE(choice->property("displayText").toString(), QStringLiteral("Balanced"));
        QVERIFY(s.shown(QStringLiteral("presetSummary"))->property("text").toString().startsWith("SnapKV, keeps 76%"));
        QVERIFY(!apply->isEnabled());
        // A preset picked but not applied is not what the box shows when the dialog opens again.
        choice->setProperty("currentIndex", s.app->settings().presetNames().indexOf(QStringLiteral("max-saving")));
        QMetaObject::invokeMethod(settings, "close");
        QTRY_VERIFY(!isOpen(settings));
        QVERIFY(s.openSettings());
        QCOMPARE(choice->property("displayText").toString(), QStringLiteral("Balanced"));
    }

    // Item 4: "Reset all" asks before it takes every change back.
    void resetAllAsksFirst()
    {
        ShownApp s;
        QVERIFY(s.window);
        QObject* settings = s.openSettings();
        QVERIFY(settings);
        QVERIFY(s.app->settings().setValue("temperature", "0.25"));
        QQuickItem* reset = s.shown(QStringLiteral("resetAllButton"));
        QVERIFY(reset);
        QMetaObject::invokeMethod(reset, "clicked");
        QObject* ask = s.find("resetDialog");
        QTRY_VERIFY(isOpen(ask));
        QCOMPARE(s.app->settings().value("temperature"), QStringLiteral("0.25"));  // not yet
        QMetaObject::invokeMethod(ask, "reject");
        QTRY_VERIFY(!isOpen(ask));
        QCOMPARE(s.app->settings().value("temperature"), QStringLiteral("0.25"));
        QMetaObject::invokeMethod(reset, "clicked");
        QTRY_VERIFY(isOpen(ask));
        QMetaObject::invokeMethod(ask, "reset");
        QTRY_VERIFY(!isOpen(ask));
        QCOMPARE(s.app->settings().current().sampling.temperature, pyramid::SamplingParams{}.temperature);
    }

    // Items 5 and 8: a refused value's field is framed in red; under H2O the PyramidInfer group
    // says its knobs only set the budget.
    void settingsShowWhatTheySay()
    {
        ShownApp s;
        QVERIFY(s.window);
        QObject* settings = s.openSettings();
        QVERIFY(settings);
        const auto frameOf = [&](const char* key) -> QQuickItem* {
            QQuickItem* field = s.shown(QStringLiteral("field_") + QLatin1String(key));
            if (!field)
                return nullptr;
            for (QQuickItem* item : visualTree(field))
                if (item->objectName() == QLatin1String("errorFrame"))
                    return item;
            return nullptr;
        };
        QTRY_VERIFY(frameOf("recent_ratio"));  // once the list has laid out its fields
        // The fields overflow the dialog, and the scroll bar says so before anything moves.
        QQuickItem* bar = s.shown(QStringLiteral("settingsScrollBar"));
        QVERIFY(bar);
        QVERIFY(bar->property("size").toDouble() < 1.0);
        QVERIFY(!bar->property("active").toBool());
        QTRY_VERIFY(bar->property("contentItem").value<QQuickItem*>()->opacity() > 0.5);
        QVERIFY(!frameOf("recent_ratio")->isVisible());
        QVERIFY(!s.app->settings().setValue("recent_ratio", "7"));
        QTRY_VERIFY(frameOf("recent_ratio")->isVisible());
        QCOMPARE(frameOf("recent_ratio")->property("border").value<QObject*>()->property("color").value<QColor>(),
                 settings->property("errorColor").value<QColor>());
        QVERIFY(!frameOf("distance_weight")->isVisible());

        QVERIFY(!s.shown(QStringLiteral("groupNote")));
        QVERIFY(s.app->settings().setValue("policy", "h2o"));
        QTRY_VERIFY(s.shown(QStringLiteral("groupNote")));
        QVERIFY(s.shown(QStringLiteral("groupNote"))->property("text").toString().contains("only set its budget"));
        QVERIFY(s.app->settings().setValue("policy", "pyramid"));
        QTRY_VERIFY(!s.shown(QStringLiteral("groupNote")));
    }
    // Item 7: the model menu describes each file, marks the open one and greys what is no model.
    void theModelMenuDescribesTheFiles()
    {
        ShownApp s;
        QVERIFY(s.window);
        s.env.makeModelFile(QStringLiteral("other.gguf"));
        QFile notes(s.env.modelsDir + QStringLiteral("/notes.gguf"));
        QVERIFY(notes.open(QIODevice::WriteOnly));
        notes.write("not a model");
        notes.close();
        s.app->models().rescan();  // as opening the menu does
        QMap<QString, QObject*> entries;
        QTRY_COMPARE_WITH_TIMEOUT(
            [&] {
                entries.clear();
                for (QObject* entry : s.window->findChildren<QObject*>(QStringLiteral("modelEntry")))
                    entries.insert(entry->property("text").toString().section(QStringLiteral(" — "), 0, 0), entry);
                return entries.size();
            }(),
            3, 3000);
        QCOMPARE(s.app->models().modelName(), QStringLiteral("tiny.gguf"));
        QVERIFY(entries["tiny.gguf"]->property("checked").toBool());
        QVERIFY(!entries["other.gguf"]->property("checked").toBool());
        QVERIFY(entries["tiny.gguf"]->property("text").toString().contains("Q4_K_M · 22 layers · 2,048 positions"));
        QVERIFY(entries["tiny.gguf"]->property("enabled").toBool());
        QVERIFY(!entries["notes.gguf"]->property("enabled").toBool());
        QCOMPARE(entries["notes.gguf"]->property("text").toString(),
                 QStringLiteral("notes.gguf — cannot be opened: it is not a GGUF file"));

        // Open, the menu shows every entry whole, inside the window: the names and sizes are
        // not cut to the style's 200 pixels. Recent models are named as the file, with the
        // path on hovering.
        QObject* menu = s.find("modelMenu");
        QVERIFY(menu);
        QMetaObject::invokeMethod(menu, "open");
        QTRY_VERIFY(isOpen(menu));
        QList<QQuickItem*> shownEntries;
        for (QObject* entry : entries)
            shownEntries.push_back(qobject_cast<QQuickItem*>(entry));
        QQuickItem* recent = s.shown(QStringLiteral("recentEntry"));
        QVERIFY(recent);
        QCOMPARE(recent->property("text").toString(), QStringLiteral("tiny.gguf"));
        shownEntries.push_back(recent);
        for (QQuickItem* entry : shownEntries) {
            QVERIFY(entry);
            const QString text = entry->property("text").toString();
            QVERIFY2(entry->width() >= entry->implicitWidth(), qPrintable(text));
            const QPointF left = entry->mapToScene({0, 0});
            QVERIFY2(left.x() >= 0 && left.x() + entry->width() <= s.window->width(), qPrintable(text));
        }
        QVERIFY(shownEntries.front()->width() > 200);
        QMetaObject::invokeMethod(menu, "close");
        QTRY_VERIFY(!isOpen(menu));

        // The models folder is one click away.
        QObject* folder = s.find("modelsFolderItem");
        QVERIFY(folder);
        QCOMPARE(folder->property("text").toString(), QStringLiteral("Show the models folder"));

        QSignalSpy changed(&s.app->models(), &ModelManager::modelChanged);
        QMetaObject::invokeMethod(entries["other.gguf"], "triggered");
        QVERIFY(changed.wait(5000));
        QVERIFY(entries["other.gguf"]->property("checked").toBool());
        QVERIFY(!entries["tiny.gguf"]->property("checked").toBool());
    }
    // Code in a reply is coloured by its language, in the scheme of the theme shown; a language
    // the highlighter does not know stays plain monospace.
    void codeBlocksAreHighlightedInTheTheme()
    {
        FakeScript script;
        script.pieces = {"Here:\n```python\n", "def f():\n    return 1\n```\n", "```nosuchlanguage\nx = 1\n```"};
        ShownApp s(script);
        QVERIFY(s.window);
        QVERIFY(s.app->settings().setValue("theme", "light"));
        QVERIFY(s.send("Show me code"));
        const auto codeTexts = [&] {
            QList<QQuickItem*> out;
            for (QQuickItem* item : visualTree(s.window->contentItem()))
                if (item->objectName() == QLatin1String("codeText") && item->isVisible())
                    out += item;
            return out;
        };
        QTRY_COMPARE(codeTexts().size(), 2);
        using C = CodeHighlighter::Category;
        QQuickItem* python = codeTexts().at(0);
        QCOMPARE(python->property("textFormat").toInt(), int(Qt::RichText));
        QVERIFY(python->property("text").toString().contains(CodeHighlighter::colour(C::Keyword, false).name()));
        QCOMPARE(codeTexts().at(1)->property("textFormat").toInt(), int(Qt::PlainText));
        QCOMPARE(codeTexts().at(1)->property("text").toString(), QStringLiteral("x = 1"));

        QVERIFY(s.app->settings().setValue("theme", "dark"));
        QTRY_VERIFY(python->property("text").toString().contains(CodeHighlighter::colour(C::Keyword, true).name()));
    }
    // A block quote in a reply is drawn with a bar beside its text; math stays as written.
    void quotesHaveABarAndMathStaysReadable()
    {
        FakeScript script;
        script.pieces = {"He wrote:\n> To be *or* not", "\n\nand $a*b*c$."};
        ShownApp s(script);
        QVERIFY(s.window);
        QVERIFY(s.send("Quote Hamlet"));
        QQuickItem* bar = nullptr;
        QTRY_VERIFY((bar = s.shown(QStringLiteral("quoteBar"))));
        QQuickItem* quote = s.shown(QStringLiteral("quoteText"));
        QVERIFY(quote);
        QCOMPARE(quote->property("text").toString().contains("To be"), true);
        QVERIFY(bar->width() >= 2 && bar->height() >= quote->height() - 1);
        QVERIFY(bar->mapToScene({}).x() < quote->mapToScene({}).x());
        bool mathShown = false;
        for (QQuickItem* item : visualTree(s.window->contentItem()))
            if (item->objectName() == QLatin1String("proseText") && item->isVisible())
                mathShown = mathShown || item->property("text").toString().contains("$a*b*c$");
        QVERIFY(mathShown);
    }
    // Edit on an earlier message: its text comes into the message box, Enter forks the
    // conversation there, and the question's ‹ › pages back to the earlier branch.
    void editingAnEarlierMessageForksFromTheWindow()
    {
        ShownApp s;
        QVERIFY(s.window);
        QVERIFY(s.send("Hello"));
        QVERIFY(s.send("Second"));
        const auto named = [&](const char* name) {
            QList<QQuickItem*> out;
            for (QQuickItem* item : visualTree(s.window->contentItem()))
                if (item->objectName() == QLatin1String(name) && item->isVisible())
                    out += item;
            return out;
        };
        QTRY_COMPARE(named("editMessage").size(), 2);  // on the two questions only
        QQuickItem* first = named("editMessage").at(0);
        QTRY_VERIFY(first->isEnabled());
        QMetaObject::invokeMethod(first, "clicked");
        QVERIFY(s.app->chat().editing());
        QQuickItem* input = s.input();
        QCOMPARE(input->property("text").toString(), QStringLiteral("Hello"));
        QCOMPARE(input->property("cursorPosition").toInt(), 5);
        typeText(s.window, " again");
        QSignalSpy finished(&s.app->chat(), &ChatController::replyFinished);
        QTest::keyClick(s.window, Qt::Key_Return);
        QVERIFY(finished.wait(10000));
        QCOMPARE(s.app->messages().count(), 2);
        QCOMPARE(s.app->messages().at(0).text, QStringLiteral("Hello again"));
        QCOMPARE(input->property("text").toString(), QString());

        QTRY_COMPARE(named("versionLabel").size(), 1);
        QCOMPARE(named("versionLabel").at(0)->property("text").toString(), QStringLiteral("2/2"));
        QQuickItem* older = named("olderVersion").at(0);
        QVERIFY(older->isEnabled());
        QMetaObject::invokeMethod(older, "clicked");
        QCOMPARE(s.app->messages().count(), 4);
        QCOMPARE(s.app->messages().at(0).text, QStringLiteral("Hello"));
        QCOMPARE(s.app->messages().at(2).text, QStringLiteral("Second"));
    }
};

QTEST_MAIN(WindowTest)
#include "app_window_test.moc"
