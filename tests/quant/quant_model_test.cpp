// Whole quantized models on the CPU: the kquants test files (Q4_K_M, and the mixed file with
// all 13 weight types) run straight from their quantized weights must give the logits of the
// same model dequantized to float32 (ggml-exact to_float), through a prefill (the
// multi-token kernels) and single-token decode steps.
//
// The quantized dot is the exact one (weights decoded tile by tile) unless the environment
// asks for another: then PYRAMID_CPU_QUANT_DOT=int8 checks the int8-activation path with the
// looser bound its rounding needs. Exact: 1e-4 relative (max abs diff / max abs).
#include <QtTest>

#include <string>
#include <vector>

#include "backend/backend_environment.h"
#include "backend/cpu_backend.h"
#include "backend/dequantized_weights.h"
#include "backend/kernel_config.h"
#include "eval/replay.h"
#include "generate/inference_session.h"
#include "model/model.h"
#include "shared_data.h"

using namespace pyramid;

namespace {

// Logits after the prompt and after each of `continuation`'s tokens, fed one at a time.
std::vector<std::vector<float>> run(Backend& backend, const std::vector<int32_t>& prompt,
                                    const std::vector<int32_t>& continuation)
{
    InferenceSession session(backend, CompressionConfig::full_cache());
    std::vector<std::vector<float>> out{session.prefill(prompt)};
    for (int32_t token : continuation)
        out.push_back(session.decode(token));
    return out;
}

size_t quantized_matrices(const ModelWeights& w)
{
    size_t count = 0;
    for (const LayerWeights& l : w.layers)
        for (const WeightView* v : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
            count += tensor_type_traits(v->type).block_elems > 1;
    return count;
}

} // namespace

class QuantModelTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        // The exact dot unless the environment asks for another (the CTest variants).
        kernels_ = kernel_config_from_environment({cpu::best_kernel_config().isa, cpu::QuantizedDot::Exact});
        if (qgetenv("PYRAMID_CPU_QUANT_DOT") == "int8" && kernels_.quantized_dot != cpu::QuantizedDot::Int8)
            QSKIP("the int8 quantized dot needs AVX2, which this CPU lacks");
        qInfo("CPU kernels: %s, %s quantized dot", std::string(cpu::kernel_isa_name(kernels_.isa)).c_str(),
              std::string(cpu::quantized_dot_name(kernels_.quantized_dot)).c_str());
    }

    void logits_equal_the_dequantized_model_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("quantized_layer_matrices");  // of the 28 in 4 layers
        QTest::newRow("q4_k_m") << "models/kquants/synthetic-llama-q4_k_m.gguf" << 28;
        QTest::newRow("mixed") << "models/kquants/synthetic-llama-mixed.gguf" << 22;
    }

    void logits_equal_the_dequantized_model()
    {
        QFETCH(QString, file);
        QFETCH(int, quantized_layer_matrices);
        PYRAMID_REQUIRE_SHARED(path, file.toStdString());

        BackendOptions on_cpu(BackendPreference::Cpu);
        on_cpu.cpu_kernels = kernels_;
        auto model = Model::open(path, on_cpu);
        QCOMPARE(model->backend().info().name, std::string("cpu"));
        const ModelWeights& stored = model->files().weights;
        QCOMPARE(quantized_matrices(stored), size_t(quantized_layer_matrices));

        const Tokenizer& tok = model->tokenizer();
        std::vector<int32_t> prompt{tok.bos_id()};
        for (int32_t id : tok.encode("The weights are random, so this text means nothing at all to the model."))
            prompt.push_back(id);
        const std::vector<int32_t> continuation = tok.encode(" Still, every logit must match.");
        QVERIFY(prompt.size() > 16 && continuation.size() > 3);  // several token tiles, several steps

        const ModelWeights dequantized = dequantized_copy(stored);
        QCOMPARE(quantized_matrices(dequantized), size_t(0));
        CpuBackend reference_backend(dequantized, KvPrecision::F32, kernels_);

        const auto got = run(model->backend(), prompt, continuation);
        const auto expected = run(reference_backend, prompt, continuation);
        QCOMPARE(got.size(), expected.size());
        // Int8: each matmul's inputs are rounded to 8 bits per block of 32 (about 0.5% of a
        // dot), which these random-weight models carry to about 1% of the logits.
        const double tolerance = kernels_.quantized_dot == cpu::QuantizedDot::Exact ? 1e-4 : 5e-2;
        double worst = 0;
        for (size_t step = 0; step < got.size(); ++step) {
            const double error = relative_error(got[step], expected[step]);
            worst = std::max(worst, error);
            QVERIFY2(error < tolerance, qPrintable(QString("step %1: relative error %2").arg(step).arg(error)));
        }
        qInfo("worst relative logit error over %zu steps: %.3g", got.size(), worst);
    }

private:
    cpu::KernelConfig kernels_;
};

QTEST_APPLESS_MAIN(QuantModelTest)
#include "quant_model_test.moc"
