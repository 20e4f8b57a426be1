// pyramid-inspect's answer to "how long a prompt fits my GPU" (memory_estimate.h) on the
// kquants models: the longest prompt is the last length whose memory fits, more memory never
// gives a shorter prompt, and the parts add up as the CUDA backend counts them.
#include <QtTest>

#include "kv/compression_presets.h"
#include "kv/kv_footprint.h"
#include "memory_estimate.h"
#include "model/model_loader.h"
#include "shared_data.h"

using namespace pyramid;
using namespace pyramid::inspect;

class MemoryEstimateTest : public QObject {
    Q_OBJECT
private slots:
    void longest_prompt_is_the_last_that_fits_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("q4_k_m") << "models/kquants/synthetic-llama-q4_k_m.gguf";
        QTest::newRow("mixed") << "models/kquants/synthetic-llama-mixed.gguf";
    }

    void longest_prompt_is_the_last_that_fits()
    {
        QFETCH(QString, file);
        PYRAMID_REQUIRE_SHARED(path, file.toStdString());
        const LoadedModel model = load_model_files(path);
        const ModelWeights& w = model.weights;
        const CompressionConfig full = CompressionConfig::full_cache(), pyramid = compression_preset("reference-7b");

        // The parts: weights, scratch and the KV cache in 16-entry blocks per layer.
        const int n = 1000;
        const size_t entry = static_cast<size_t>(w.config.kv_dim()) * 2 * 2;
        const size_t weights = weight_memory(w).cuda_fp16_bytes;
        QCOMPARE(cuda_prompt_bytes(w, full, n),
                 weights + estimate_cuda_scratch(w, n).total() + size_t(w.config.n_layers) * 1008 * entry);
        size_t pyramid_blocks = 0;
        for (int entries : plan_kv_footprint(pyramid, w.config.n_layers, n, 0).after_prefill)
            pyramid_blocks += static_cast<size_t>(entries + 15) / 16;
        QCOMPARE(cuda_prompt_bytes(w, pyramid, n),
                 weights + estimate_cuda_scratch(w, n).total() + pyramid_blocks * 16 * entry);

        int previous_full = 0, previous_pyramid = 0;
        const size_t least = cuda_prompt_bytes(w, full, 1);
        const size_t most = cuda_prompt_bytes(w, full, w.config.context_length);
        for (size_t memory = least - 1; memory <= most + (most - least) / 8; memory += (most - least) / 8) {
            for (const CompressionConfig* config : {&full, &pyramid}) {
                const int longest = longest_prompt(w, *config, memory);
                QVERIFY(longest >= 0 && longest <= w.config.context_length);
                if (longest > 0)
                    QVERIFY(cuda_prompt_bytes(w, *config, longest) <= memory);
                if (longest < w.config.context_length)
                    QVERIFY(cuda_prompt_bytes(w, *config, longest + 1) > memory);
            }
            const int f = longest_prompt(w, full, memory), p = longest_prompt(w, pyramid, memory);
            QVERIFY(f >= previous_full && p >= previous_pyramid);
            // The same step memory under every policy, and PyramidInfer's cache is never larger.
            QVERIFY2(p >= f, qPrintable(QString("%1 bytes: PyramidInfer %2 tokens, full %3").arg(memory).arg(p).arg(f)));
            previous_full = f;
            previous_pyramid = p;
        }
        QCOMPARE(longest_prompt(w, full, least - 1), 0);
        QCOMPARE(longest_prompt(w, full, most), w.config.context_length);
    }
};

QTEST_APPLESS_MAIN(MemoryEstimateTest)
#include "memory_estimate_test.moc"
