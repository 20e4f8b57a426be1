// Sizes as messages and reports print them (util/byte_size.h).
#include <QtTest>

#include "util/byte_size.h"

using pyramid::byte_size_text;

class ByteSizeTest : public QObject {
    Q_OBJECT
private slots:
    void unit_is_the_largest_that_leaves_one_data()
    {
        QTest::addColumn<quint64>("bytes");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << quint64(0) << "0 bytes";
        QTest::newRow("under a KiB") << quint64(1023) << "1023 bytes";
        QTest::newRow("a KiB") << quint64(1024) << "1.0 KiB";
        QTest::newRow("KV of a short reply") << quint64(3174) << "3.1 KiB";
        QTest::newRow("just under a MiB") << quint64((1 << 20) - 1) << "1024.0 KiB";
        QTest::newRow("a MiB") << quint64(1 << 20) << "1.0 MiB";
        QTest::newRow("Q4_K_M test model") << quint64(13224960) << "12.6 MiB";
        QTest::newRow("a GiB") << quint64(1) * (1 << 30) << "1.00 GiB";
        QTest::newRow("7B Q4_K_M weights") << quint64(4080263168) << "3.80 GiB";
        QTest::newRow("a TiB, still GiB") << (quint64(1) << 40) << "1024.00 GiB";
    }
    void unit_is_the_largest_that_leaves_one()
    {
        QFETCH(quint64, bytes);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(byte_size_text(bytes)), text);
    }
};

QTEST_APPLESS_MAIN(ByteSizeTest)
#include "test_byte_size.moc"
