// How many rows a GPU layer runs at once (chunk_rows_for_memory, backend/step_memory.h): the
// most, in steps of 512 up to 4096, whose buffers take at most a 32nd of the memory free beside
// the weights, never fewer than 512.
#include <QtTest>

#include "backend/step_memory.h"
#include "model/model_shapes.h"

using namespace pyramid;

namespace {

constexpr size_t kMiB = size_t(1) << 20, kGiB = size_t(1) << 30;

} // namespace

class StepMemoryTest : public QObject {
    Q_OBJECT
private slots:
    void chunk_rows_follow_the_free_memory()
    {
        const ModelConfig& c = find_model_shape("llama2-7b").config;
        const StepBufferLayout fp16;
        // One row of LLaMA-2-7B's chunk buffers in fp16: hidden, q, k, v, gate and up in float32
        // (4096 x 4 + 11008 x 2), normed and attended (4096 each) and activated (11008) in fp16,
        // softmax statistics (32 heads x 2 floats) and a position.
        const size_t row = 4 * (4096 * 4 + 11008 * 2) + 2 * (4096 * 2 + 11008) + 32 * 2 * 4 + 4;
        QCOMPARE(chunk_buffers(c, fp16, 1).total(), row);

        QCOMPARE(chunk_rows_for_memory(c, fp16, 0), 512);
        // Q4_K_M (3.8 GiB of weights) on 6 and 8 GB cards keeps the least.
        QCOMPARE(chunk_rows_for_memory(c, fp16, size_t(1.6 * double(kGiB))), 512);
        QCOMPARE(chunk_rows_for_memory(c, fp16, size_t(3.6 * double(kGiB))), 512);
        // On a 24 GB card, 19.6 GiB free: 627 MiB for 3415 rows, so 3072.
        QCOMPARE(chunk_rows_for_memory(c, fp16, size_t(19.6 * double(kGiB))), 3072);
        QCOMPARE(chunk_rows_for_memory(c, fp16, 65 * kGiB), 4096);

        // At every size: a whole number of steps, within the 32nd unless at the least, and the
        // next step up would not be.
        for (size_t free = 0; free <= 40 * kGiB; free += 97 * kMiB) {
            const int rows = chunk_rows_for_memory(c, fp16, free);
            QVERIFY(rows % kChunkRowsStep == 0 && rows >= kChunkRowsStep && rows <= kMaxChunkRows);
            if (rows > kChunkRowsStep)
                QVERIFY(chunk_buffers(c, fp16, rows).total() <= free / 32);
            if (rows < kMaxChunkRows)
                QVERIFY(chunk_buffers(c, fp16, rows + kChunkRowsStep).total() > free / 32);
        }

        // float32 rows are larger, so the same memory runs fewer of them.
        StepBufferLayout fp32;
        fp32.element_bytes = 4;
        QCOMPARE(chunk_rows_for_memory(c, fp32, size_t(19.6 * double(kGiB))), 2560);
    }
};

QTEST_APPLESS_MAIN(StepMemoryTest)
#include "test_step_memory.moc"
