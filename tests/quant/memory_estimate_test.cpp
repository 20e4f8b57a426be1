// pyramid-inspect's answer to "how long a prompt fits my GPU" (memory_estimate.h) on the
// kquants models, with each KV cache type a GPU stores: the longest prompt is the last length
// whose memory fits, more memory or fewer bits never give a shorter prompt, and the parts add
// up as the CUDA backend counts them.
#include <QtTest>

#include "kv/compression_presets.h"
#include "backend/cuda_backend_options.h"
#include "backend/step_memory.h"
#include "kv/kv_footprint.h"
#include "memory_estimate.h"
#include "model/model_loader.h"
#include "shared_data.h"

using namespace pyramid;
using namespace pyramid::inspect;

Q_DECLARE_METATYPE(pyramid::KvTypes)

class MemoryEstimateTest : public QObject {
    Q_OBJECT
private slots:
    void longest_prompt_is_the_last_that_fits_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<KvTypes>("types");
        QTest::addColumn<int>("entry_bytes");  // a layer's key and value of one token
        // Both files: 2 KV heads of 64 values, so keys and values of 128 values each. fp16: 2 bytes
        // a value; q8: 32 codes of a byte and a 2-byte scale per block; q4: 16 bytes and a scale.
        for (const char* file : {"models/kquants/synthetic-llama-q4_k_m.gguf", "models/kquants/synthetic-llama-mixed.gguf"}) {
            const QString name = QString(file).section('-', -1);
            QTest::newRow(qPrintable(name + " f16")) << file << KvTypes{KvPrecision::F16} << 2 * 128 * 2;
            QTest::newRow(qPrintable(name + " q8")) << file << KvTypes{KvPrecision::Q8} << 2 * 4 * 34;
            QTest::newRow(qPrintable(name + " q4")) << file << KvTypes{KvPrecision::Q4} << 2 * 4 * 18;
            QTest::newRow(qPrintable(name + " K q8 V f16"))
                << file << KvTypes{KvPrecision::Q8, KvPrecision::F16} << 4 * 34 + 128 * 2;
        }
    }

    void longest_prompt_is_the_last_that_fits()
    {
        QFETCH(QString, file);
        QFETCH(KvTypes, types);
        QFETCH(int, entry_bytes);
        PYRAMID_REQUIRE_SHARED(path, file.toStdString());
        const LoadedModel model = load_model_files(path);
        const ModelWeights& w = model.weights;
        const CompressionConfig full = CompressionConfig::full_cache(), pyramid = compression_preset("reference-7b");

        // The parts: weights, scratch and the KV cache in 16-entry blocks per layer, the step's
        // buffers for the rows run at once.
        const int n = 1000;
        const size_t entry = static_cast<size_t>(entry_bytes);
        const size_t weights = weight_memory(w).cuda_fp16_bytes;
        for (int chunk : {512, 1024}) {
            QCOMPARE(cuda_prompt_bytes(w, full, n, types, chunk),
                     weights + estimate_cuda_scratch(w, n, types, chunk).total() + size_t(w.config.n_layers) * 1008 * entry);
            size_t pyramid_blocks = 0;
            for (int entries : plan_kv_footprint(pyramid, w.config.n_layers, n, 0).after_prefill)
                pyramid_blocks += static_cast<size_t>(entries + 15) / 16;
            QCOMPARE(cuda_prompt_bytes(w, pyramid, n, types, chunk),
                     weights + estimate_cuda_scratch(w, n, types, chunk).total() + pyramid_blocks * 16 * entry);
        }
        // Taller chunks hold more rows' buffers.
        QVERIFY(estimate_cuda_scratch(w, n, types, 1024).steps > estimate_cuda_scratch(w, n, types, 512).steps);

        int previous_full = 0, previous_pyramid = 0;
        const size_t least = cuda_prompt_bytes(w, full, 1, types, 512);
        const size_t most = cuda_prompt_bytes(w, full, w.config.context_length, types, 512);
        const KvTypes f16{KvPrecision::F16};
        for (size_t memory = least - 1; memory <= most + (most - least) / 8; memory += (most - least) / 8) {
            const int chunk = cuda_chunk_rows(w, memory);
            for (const CompressionConfig* config : {&full, &pyramid}) {
                const int longest = longest_prompt(w, *config, memory, types);
                QVERIFY(longest >= 0 && longest <= w.config.context_length);
                if (longest > 0)
                    QVERIFY(cuda_prompt_bytes(w, *config, longest, types, chunk) <= memory);
                if (longest < w.config.context_length)
                    QVERIFY(cuda_prompt_bytes(w, *config, longest + 1, types, chunk) > memory);
                // Fewer bytes an entry than fp16's never fit a shorter prompt.
                QVERIFY(longest >= longest_prompt(w, *config, memory, f16));
            }
            const int f = longest_prompt(w, full, memory, types), p = longest_prompt(w, pyramid, memory, types);
            QVERIFY(f >= previous_full && p >= previous_pyramid);
            // The same step memory under every policy, and PyramidInfer's cache is never larger.
            QVERIFY2(p >= f, qPrintable(QString("%1 bytes: PyramidInfer %2 tokens, full %3").arg(memory).arg(p).arg(f)));
            previous_full = f;
            previous_pyramid = p;
        }
        QCOMPARE(longest_prompt(w, full, least - 1, types), 0);
        QCOMPARE(longest_prompt(w, full, most, types), w.config.context_length);
    }

    // The rows the backend would run at once: chunk_rows_for_memory of what weights, tiles and
    // the cuBLAS workspace leave.
    void chunk_rows_follow_the_memory_left()
    {
        PYRAMID_REQUIRE_SHARED(path, "models/kquants/synthetic-llama-q4_k_m.gguf");
        const LoadedModel model = load_model_files(path);
        const ModelWeights& w = model.weights;
        const size_t fixed = cuda_prompt_bytes(w, CompressionConfig::full_cache(), 1, KvTypes{KvPrecision::F16}, 512) -
                             estimate_cuda_scratch(w, 1, KvTypes{KvPrecision::F16}, 512).steps -
                             size_t(w.config.n_layers) * 16 * 512;  // a block of 16 fp16 entries (512 bytes) a layer
        for (size_t left : {size_t(0), size_t(64) << 20, size_t(1) << 30}) {
            QCOMPARE(cuda_chunk_rows(w, fixed + left), chunk_rows_for_memory(w.config, StepBufferLayout{}, left));
        }
        QCOMPARE(cuda_chunk_rows(w, 0), 512);
    }

    // The types pyramid-inspect's GPU table compares: as the GPU stores them, q8 and q4 only
    // where a head is whole 32-value blocks, the chosen mix after them.
    void gpu_fit_compares_the_types_a_gpu_stores()
    {
        ModelConfig config;
        config.head_dim = 64;
        const KvTypes f16{KvPrecision::F16}, q8{KvPrecision::Q8}, q4{KvPrecision::Q4};
        QCOMPARE(gpu_fit_kv_types(config, f16), (std::vector<KvTypes>{f16, q8, q4}));
        QCOMPARE(gpu_fit_kv_types(config, KvTypes{KvPrecision::F32}), (std::vector<KvTypes>{f16, q8, q4}));
        QCOMPARE(gpu_fit_kv_types(config, q4), (std::vector<KvTypes>{f16, q8, q4}));
        const KvTypes mix{KvPrecision::Q8, KvPrecision::F32};
        QCOMPARE(gpu_fit_kv_types(config, mix), (std::vector<KvTypes>{f16, q8, q4, KvTypes{KvPrecision::Q8, KvPrecision::F16}}));
        config.head_dim = 8;  // stories260K's heads
        QCOMPARE(gpu_fit_kv_types(config, f16), (std::vector<KvTypes>{f16}));
        QCOMPARE(cuda::cuda_stored_kv_types(KvTypes{KvPrecision::F32, KvPrecision::Q4}, cuda::Precision::Fp16), (KvTypes{KvPrecision::F16, KvPrecision::Q4}));
    }
};

QTEST_APPLESS_MAIN(MemoryEstimateTest)
#include "memory_estimate_test.moc"
