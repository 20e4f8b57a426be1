// SingleInstance: one PyramidChat per data folder; a second start brings the first forward
// with the model it was given and its launcher's activation token; a lock left by a process
// that died does not keep the app out.
#include <QLockFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QWindow>
#include <sys/wait.h>
#include <unistd.h>

#include "single_instance.h"

class SingleInstanceTest : public QObject {
    Q_OBJECT

private slots:
    void aSecondStartBringsTheFirstForward()
    {
        QTemporaryDir dir;
        SingleInstance first(dir.path());
        QCOMPARE(first.claim(), SingleInstance::Claim::Owner);
        QSignalSpy activated(&first, &SingleInstance::activationRequested);

        const QString token = QStringLiteral("gnome-shell/PyramidChat/2817-0-host_TIME1234");
        qputenv("XDG_ACTIVATION_TOKEN", token.toUtf8());
        SingleInstance second(dir.path());
        QCOMPARE(second.claim(QStringLiteral("/models/llama-2-7b-chat.Q4_K_M.gguf")), SingleInstance::Claim::Forwarded);
        QVERIFY(!qEnvironmentVariableIsSet("XDG_ACTIVATION_TOKEN"));  // handed over: it activates once
        QVERIFY(activated.wait(5000));
        QCOMPARE(activated.at(0).at(0).toString(), QStringLiteral("/models/llama-2-7b-chat.Q4_K_M.gguf"));
        QCOMPARE(activated.at(0).at(1).toString(), token);

        SingleInstance third(dir.path());
        QCOMPARE(third.claim(), SingleInstance::Claim::Forwarded);
        QTRY_COMPARE(activated.size(), 2);
        QCOMPARE(activated.at(1).at(0).toString(), QString());
        QCOMPARE(activated.at(1).at(1).toString(), QString());

        // Any character a file name may hold arrives intact; a token that is not one printable
        // word is not passed on to the compositor.
        qputenv("XDG_ACTIVATION_TOKEN", "two\nlines");
        const QString oddPath = QStringLiteral("/models/a\nb \u00e9\u6a21\u578b.gguf");
        SingleInstance fourth(dir.path());
        QCOMPARE(fourth.claim(oddPath), SingleInstance::Claim::Forwarded);
        QTRY_COMPARE(activated.size(), 3);
        QCOMPARE(activated.at(2).at(0).toString(), oddPath);
        QCOMPARE(activated.at(2).at(1).toString(), QString());
    }

    // The token is set only while the window asks for the focus (Qt's Wayland client reads it
    // then); no child process started later may inherit it.
    void bringingForwardShowsTheWindowAndDropsTheToken()
    {
        QWindow window;
        window.setWindowStates(Qt::WindowMinimized);
        SingleInstance::bringForward(window, QStringLiteral("kwin-42"));
        QVERIFY(window.isVisible());
        QVERIFY(!(window.windowStates() & Qt::WindowMinimized));
        QVERIFY(!qEnvironmentVariableIsSet("XDG_ACTIVATION_TOKEN"));
    }

    void eachDataFolderHasItsOwn()
    {
        QTemporaryDir a, b;
        SingleInstance first(a.path()), second(b.path());
        QCOMPARE(first.claim(), SingleInstance::Claim::Owner);
        QCOMPARE(second.claim(), SingleInstance::Claim::Owner);
    }

    void theFolderIsFreeOnceTheFirstEnds()
    {
        QTemporaryDir dir;
        {
            SingleInstance first(dir.path());
            QCOMPARE(first.claim(), SingleInstance::Claim::Owner);
        }
        SingleInstance next(dir.path());
        QCOMPARE(next.claim(), SingleInstance::Claim::Owner);
    }

    // A holder that does not answer (hung, or on another machine sharing the home folder) is
    // said so, with how to free the folder; the start never ends silently.
    void aHolderThatDoesNotAnswerIsNamed()
    {
        QTemporaryDir dir;
        QLockFile held(dir.filePath(QStringLiteral("pyramidchat.lock")));
        QVERIFY(held.tryLock());  // held, but no PyramidChat listens
        qputenv("XDG_ACTIVATION_TOKEN", "kwin-43");
        SingleInstance next(dir.path());
        QCOMPARE(next.claim(), SingleInstance::Claim::Unanswered);
        // Not handed over: the window this start shows to say so activates with it.
        QCOMPARE(qgetenv("XDG_ACTIVATION_TOKEN"), QByteArray("kwin-43"));
        qunsetenv("XDG_ACTIVATION_TOKEN");
        const QString description = next.holderDescription();
        QVERIFY2(description.contains(QString::number(QCoreApplication::applicationPid())), qPrintable(description));
        QVERIFY(description.contains(held.fileName()));
    }

    void aLockLeftByACrashDoesNotKeepTheAppOut()
    {
        QTemporaryDir dir;
        const pid_t child = fork();
        if (child == 0) {
            // Takes the folder and dies without letting it go, as a crash would.
            QLockFile lock(dir.filePath(QStringLiteral("pyramidchat.lock")));
            _exit(lock.tryLock() ? 0 : 1);
        }
        int status = 0;
        QCOMPARE(waitpid(child, &status, 0), child);
        QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("pyramidchat.lock"))));

        SingleInstance next(dir.path());
        QCOMPARE(next.claim(), SingleInstance::Claim::Owner);
    }
};

QTEST_MAIN(SingleInstanceTest)
#include "app_single_instance_test.moc"
