// pyramid-cli beside the desktop app (issue 38, item 7): without --model it passes over files
// in the models folder that are no model it can read and takes the first that is, and its
// compression default is the app's (PyramidInfer).
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <sys/stat.h>

#include "app_test_env.h"
#include "model_search.h"

class CliDefaultsTest : public QObject {
    Q_OBJECT

private slots:
    void theSearchPassesOverFilesThatAreNoModel()
    {
        QTemporaryDir home;
        qputenv("XDG_DATA_HOME", home.path().toUtf8());
        qunsetenv("PYRAMID_MODEL");
        const QString models = home.filePath(QStringLiteral("pyramidchat/models"));
        QVERIFY(QDir().mkpath(models));
        const auto write = [&](const char* name, const QByteArray& bytes) {
            QFile file(models + "/" + name);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(bytes);
        };
        write("a-notes.gguf", "my notes, named .gguf by mistake");
        write("b-empty.gguf", "");
        QVERIFY(::mkfifo(qPrintable(models + "/c-pipe.gguf"), 0600) == 0);  // would block a read
        write("z-model.gguf", AppTestEnv::minimalGguf(2, 128, 0));
        QCOMPARE(QString::fromStdString(pyramid::find_default_model().string()), models + "/z-model.gguf");
        QStringList fromTheUsersFolder;
        for (const auto& candidate : pyramid::default_model_candidates())
            if (QString::fromStdString(candidate.parent_path().string()) == models)
                fromTheUsersFolder.push_back(QString::fromStdString(candidate.filename().string()));
        QCOMPARE(fromTheUsersFolder, QStringList{"z-model.gguf"});
    }

    void theDefaultPolicyIsTheApps()
    {
        QProcess cli;
        cli.start(QStringLiteral(PYRAMID_CLI), {QStringLiteral("--help")});
        QVERIFY(cli.waitForFinished(30000));
        const QString help = QString::fromUtf8(cli.readAllStandardOutput());
        QVERIFY2(help.contains(QRegularExpression(QStringLiteral("--policy \\S*=\\[pyramid\\]"))), qPrintable(help));
        QCOMPARE(pyramid::CompressionConfig{}.policy, pyramid::CompressionPolicyKind::Pyramid);  // the app's
        QCOMPARE(ChatSettings{}.compression.policy, pyramid::CompressionPolicyKind::Pyramid);
    }
};

QTEST_GUILESS_MAIN(CliDefaultsTest)
#include "app_cli_defaults_test.moc"
