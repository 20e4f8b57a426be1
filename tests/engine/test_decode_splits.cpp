// How batched decode attention cuts a cache into splits (backend/decode_splits.h), checked for
// every cache length up to 300,000 entries and at the int range's end: the splits cover the
// cache with no empty one, there are at most kMaxDecodeSplits of them, each as short as that
// allows (kMinDecodeSplitEntries times a power of two), and decode_splits_up_to bounds every
// shorter cache (the GPU's grids and its step-memory bound rely on it).
#include <QtTest>

#include <climits>

#include "backend/decode_splits.h"

using namespace pyramid;

class DecodeSplitsTest : public QObject {
    Q_OBJECT
private slots:
    void splits_cover_each_cache_in_at_most_the_most_splits()
    {
        int most = 0;  // the most splits of any cache seen so far
        for (int len = 1; len <= 300000; ++len) {
            const int entries = decode_split_entries(len), splits = decode_splits(len);
            most = std::max(most, splits);
            const bool fits = splits >= 1 && splits <= kMaxDecodeSplits && int64_t(splits) * entries >= len &&
                              int64_t(splits - 1) * entries < len;
            const bool shortest = entries == kMinDecodeSplitEntries || int64_t(entries / 2) * kMaxDecodeSplits < len;
            const bool power = entries % kMinDecodeSplitEntries == 0 &&
                               ((entries / kMinDecodeSplitEntries) & (entries / kMinDecodeSplitEntries - 1)) == 0;
            if (!fits || !shortest || !power || decode_splits_up_to(len) != most)
                QFAIL(qPrintable(QString("len %1: %2 splits of %3, up to %4 (most seen %5)")
                                     .arg(len)
                                     .arg(splits)
                                     .arg(entries)
                                     .arg(decode_splits_up_to(len))
                                     .arg(most)));
        }
        QCOMPARE(decode_splits(kMaxDecodeSplits * kMinDecodeSplitEntries), kMaxDecodeSplits);
        QCOMPARE(decode_splits(kMaxDecodeSplits * kMinDecodeSplitEntries + 1), kMaxDecodeSplits / 2 + 1);
    }

    void the_largest_caches_do_not_overflow()
    {
        for (int len : {INT_MAX, INT_MAX - 1, 1 << 30, (1 << 30) + 1}) {
            const int64_t entries = decode_split_entries(len), splits = decode_splits(len);
            QVERIFY(splits >= 1 && splits <= kMaxDecodeSplits);
            QVERIFY(splits * entries >= len && (splits - 1) * entries < len);
        }
    }
};

QTEST_APPLESS_MAIN(DecodeSplitsTest)
#include "test_decode_splits.moc"
