// ModelDownload against a loopback HTTP server this test runs (no machine here reaches the
// catalogue's addresses): a whole file, a connection dropped midway and resumed with a Range
// request, a server that ignores the range, a wrong digest, a cancel, an HTTP error; and the
// catalogue in the models folder that offers downloads on the welcome page.
#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "app_test_env.h"
#include "loopback_file_server.h"
#include "model_download.h"

namespace {

QByteArray randomBytes(int n)
{
    QByteArray out(n, '\0');
    for (char& c : out)
        c = char(QRandomGenerator::global()->bounded(256));
    return out;
}

QByteArray sha256(const QByteArray& bytes) { return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex(); }

QByteArray fileBytes(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Runs one start to its end; returns whether it succeeded.
bool run(ModelDownload& download, const QUrl& url, const QString& target, const QByteArray& digest)
{
    QSignalSpy finished(&download, &ModelDownload::finished);
    download.start(url, target, digest);
    return finished.wait(20000) && finished.first().first().toBool();
}

} // namespace

class ModelDownloadTest : public QObject {
    Q_OBJECT

private slots:
    void aWholeFileArrivesChecked()
    {
        const QByteArray body = randomBytes(300000);
        FileServer server(body);
        QTemporaryDir dir;
        QNetworkAccessManager network;
        ModelDownload download(network);
        const QString target = dir.filePath("model.gguf");
        QVERIFY2(run(download, server.url(), target, sha256(body)), qPrintable(download.error()));
        QCOMPARE(fileBytes(target), body);
        QVERIFY(!QFile::exists(download.partPath()));
        QCOMPARE(download.progress(), 1.0);
        QVERIFY(!download.running());
    }

    void aDroppedConnectionResumesWhereItStopped()
    {
        const QByteArray body = randomBytes(300000);
        FileServer server(body);
        server.dropAfter = 120000;
        QTemporaryDir dir;
        QNetworkAccessManager network;
        ModelDownload download(network);
        const QString target = dir.filePath("model.gguf");
        QVERIFY(!run(download, server.url(), target, sha256(body)));
        QVERIFY2(download.error().contains("Start it again to go on from there"), qPrintable(download.error()));
        QCOMPARE(QFileInfo(download.partPath()).size(), 120000);
        QVERIFY(!QFile::exists(target));
        QVERIFY2(run(download, server.url(), target, sha256(body)), qPrintable(download.error()));
        QCOMPARE(server.ranges, (QStringList{"", "120000"}));  // only the rest was asked for
        QCOMPARE(fileBytes(target), body);
    }

    void aServerThatIgnoresTheRangeIsWrittenFromTheStart()
    {
        const QByteArray body = randomBytes(200000);
        FileServer server(body);
        server.dropAfter = 50000;
        server.honourRange = false;
        QTemporaryDir dir;
        QNetworkAccessManager network;
        ModelDownload download(network);
        const QString target = dir.filePath("model.gguf");
        QVERIFY(!run(download, server.url(), target, sha256(body)));
        QVERIFY2(run(download, server.url(), target, sha256(body)), qPrintable(download.error()));
        QCOMPARE(fileBytes(target), body);  // not the first 50000 bytes twice
    }

    void aWrongDigestKeepsNothing()
    {
        const QByteArray body = randomBytes(100000);
        FileServer server(body);
        QTemporaryDir dir;
        QNetworkAccessManager network;
        ModelDownload download(network);
        const QString target = dir.filePath("model.gguf");
        QVERIFY(!run(download, server.url(), target, sha256("something else")));
        QVERIFY2(download.error().contains("is not the one expected"), qPrintable(download.error()));
        QVERIFY(download.error().contains(QString::fromLatin1(sha256(body))));
        QVERIFY(!QFile::exists(target));
        QVERIFY(!QFile::exists(download.partPath()));  // no start for a resume
    }

    void cancelKeepsThePartAndSaysNothing()
    {
        const QByteArray body = randomBytes(4 << 20);
        FileServer server(body);
        QTemporaryDir dir;
        QNetworkAccessManager network;
        ModelDownload download(network);
        const QString target = dir.filePath("model.gguf");
        QSignalSpy finished(&download, &ModelDownload::finished);
        download.start(server.url(), target, sha256(body));
        QVERIFY(download.running());
        download.cancel();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);  // it may end within the call
        QCOMPARE(finished.first().first().toBool(), false);
        QCOMPARE(download.error(), QString());
        QVERIFY(!download.running());
        QVERIFY(QFile::exists(download.partPath()));
        QVERIFY2(run(download, server.url(), target, sha256(body)), qPrintable(download.error()));
        QCOMPARE(fileBytes(target), body);
    }

    void anHttpErrorIsSaid()
    {
        FileServer server("x");
        server.status = 404;
        QTemporaryDir dir;
        QNetworkAccessManager network;
        ModelDownload download(network);
        QVERIFY(!run(download, server.url(), dir.filePath("model.gguf"), sha256("x")));
        QVERIFY2(download.error().contains("404"), qPrintable(download.error()));
    }

    // The catalogue: its entries checked when read, a download that lands in the models folder,
    // is offered at once and opened when no model is.
    void theCatalogueDownloadsIntoTheModelsFolder()
    {
        const QByteArray model = AppTestEnv::minimalGguf(4, 256, 1);
        FileServer server(model);
        AppTestEnv env;
        QDir().mkpath(env.modelsDir);
        QFile catalogue(env.modelsDir + "/catalogue.json");
        QVERIFY(catalogue.open(QIODevice::WriteOnly));
        const auto entry = [](const char* name, const char* file, const QString& url, const QString& digest) {
            QJsonObject o{{"name", name}, {"file", file}, {"url", url}};
            if (!digest.isEmpty())
                o.insert("sha256", digest);
            return o;
        };
        QJsonObject good = entry("Tiny", "tiny-dl.gguf", server.url().toString(), QString::fromLatin1(sha256(model)));
        good.insert("bytes", model.size());
        good.insert("about", "a test model");
        const QString someDigest(64, QLatin1Char('a'));
        const QJsonArray models{good, entry("Escape", "../outside.gguf", "https://example.com/x", someDigest),
                                entry("No digest", "x.gguf", "https://example.com/x", {}),
                                entry("Local", "y.gguf", "file:///etc/passwd", someDigest)};
        catalogue.write(QJsonDocument(QJsonObject{{"models", models}}).toJson());
        catalogue.close();
        auto app = env.makeApp();
        ModelCatalogue& c = app->catalogue();
        QCOMPARE(c.entries().size(), 1);
        QCOMPARE(c.entries().first().toMap().value("name").toString(), QStringLiteral("Tiny"));
        QVERIFY(!c.entries().first().toMap().value("present").toBool());
        QVERIFY2(c.problem().contains("Escape, No digest, Local"), qPrintable(c.problem()));
        QVERIFY(!app->models().hasModel());

        QSignalSpy opened(&app->models(), &ModelManager::modelChanged);
        c.download(0);
        QVERIFY(c.downloading());
        QCOMPARE(c.downloadingName(), QStringLiteral("Tiny"));
        QVERIFY(opened.wait(20000));
        QCOMPARE(app->models().modelPath(), env.modelsDir + "/tiny-dl.gguf");
        QVERIFY(app->models().availableModels().contains(env.modelsDir + "/tiny-dl.gguf"));
        QVERIFY(c.entries().first().toMap().value("present").toBool());
        QVERIFY(c.error().isEmpty());
    }
};

QTEST_GUILESS_MAIN(ModelDownloadTest)
#include "app_model_download_test.moc"
