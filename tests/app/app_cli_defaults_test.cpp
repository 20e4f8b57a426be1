// pyramid-cli beside the desktop app (issue 38, item 7): without --model it passes over files
// in the models folder that are no model it can read and takes the first that is, and its
// compression and sampling defaults are the app's (PyramidInfer's recall preset; a repetition
// penalty of 1.1).
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
        const QRegularExpressionMatch preset = QRegularExpression(QStringLiteral("--preset TEXT=(\\S+)")).match(help);
        QVERIFY2(preset.hasMatch(), qPrintable(help));
        QCOMPARE(preset.captured(1), QStringLiteral("recall"));
        // The app's compression is that preset (PyramidInfer scoring by its last 32 tokens).
        QVERIFY(ChatSettings{}.compression == pyramid::compression_preset(preset.captured(1).toStdString()));
        QCOMPARE(ChatSettings{}.compression.policy, pyramid::CompressionPolicyKind::Pyramid);
    }

    // A chat samples alike in the terminal and the window: the app's defaults are what
    // pyramid-cli's help shows, the repetition penalty included (1.1: chat_sampling()).
    void theSamplingDefaultsAreTheApps()
    {
        QProcess cli;
        cli.start(QStringLiteral(PYRAMID_CLI), {QStringLiteral("--help")});
        QVERIFY(cli.waitForFinished(30000));
        const QString help = QString::fromUtf8(cli.readAllStandardOutput());
        const auto shown = [&](const char* option) {
            const QRegularExpression pattern(QStringLiteral("%1 FLOAT=(\\S+)").arg(QLatin1String(option)));
            const QRegularExpressionMatch match = pattern.match(help);
            return match.hasMatch() ? match.captured(1).toFloat() : -1.0f;
        };
        const pyramid::SamplingParams app = ChatSettings{}.sampling;
        QCOMPARE(shown("--temperature"), app.temperature);
        QCOMPARE(shown("--top-p"), app.top_p);
        QCOMPARE(shown("--min-p"), app.min_p);
        QCOMPARE(shown("--repeat-penalty"), app.repetition_penalty);
        QCOMPARE(app.repetition_penalty, 1.1f);
    }
};

QTEST_GUILESS_MAIN(CliDefaultsTest)
#include "app_cli_defaults_test.moc"
