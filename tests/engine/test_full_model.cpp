// stories260K end to end on the CPU: the greedy reference story from BOS, and the same logits
// from the GGUF file and the Hugging Face folders (F32 exact to float rounding, F16 within
// its own rounding).
#include <QtTest>

#include <fstream>
#include <sstream>

#include "backend/cpu_backend.h"
#include "backend/forwarding_backend.h"
#include "eval/replay.h"
#include "generate/inference_session.h"
#include "generate/sampler.h"
#include "model/model.h"
#include "shared_data.h"
#include "util/error.h"

using namespace pyramid;

namespace {

// Sets the cancel flag as a layer starts: whatever stops the step must stop it inside that
// layer, since the session's own check between layers has already passed.
class CancelInsideLayer : public ForwardingBackend {
public:
    CancelInsideLayer(Backend& inner, std::atomic<bool>& flag) : ForwardingBackend(inner), flag_(flag) {}
    void run_layer_batch(int layer, HiddenStates& hidden, std::span<const SequenceRows> sequences) override
    {
        if (armed)
            flag_ = true;
        inner_.run_layer_batch(layer, hidden, sequences);
        ++layers_finished;
    }
    bool armed = true;
    int layers_finished = 0;

private:
    std::atomic<bool>& flag_;
};

std::vector<float> prompt_logits(const std::filesystem::path& path, const std::vector<int32_t>& prompt)
{
    auto model = Model::open(path, BackendPreference::Cpu);
    InferenceSession session(model->backend(), CompressionConfig::full_cache());
    return session.prefill(prompt);
}

} // namespace

class FullModelTest : public QObject {
    Q_OBJECT
private slots:
    void greedy_reference_from_bos()
    {
        PYRAMID_REQUIRE_SHARED(model_path, "models/stories260K.gguf");
        PYRAMID_REQUIRE_SHARED(reference_path, "data/stories260K_greedy256_reference.txt");
        std::ifstream in(reference_path);
        std::string line;
        for (int i = 0; i < 3; ++i)
            std::getline(in, line);
        std::vector<int32_t> expected;
        std::istringstream ids(line);
        for (int32_t id; ids >> id;)
            expected.push_back(id);
        QCOMPARE(expected.size(), size_t(256));

        auto model = Model::open(model_path, BackendPreference::Cpu);
        InferenceSession session(model->backend(), CompressionConfig::full_cache());
        std::vector<float> logits = session.prefill(std::vector<int32_t>{model->tokenizer().bos_id()});
        std::vector<int32_t> got;
        for (int step = 0; step < 256; ++step) {
            got.push_back(Sampler::argmax(logits));
            if (step + 1 < 256)
                logits = session.decode(got.back());
        }
        QCOMPARE(got, expected);
        QVERIFY(model->tokenizer().decode(got).starts_with("Once upon a time"));
    }

    void formats_agree()
    {
        PYRAMID_REQUIRE_SHARED(gguf, "models/stories260K.gguf");
        PYRAMID_REQUIRE_SHARED(hf32, "models/stories260K-hf");
        PYRAMID_REQUIRE_SHARED(hf16, "models/stories260K-hf-f16");
        PYRAMID_REQUIRE_SHARED(golden, "golden/full_cache.json");
        const std::vector<int32_t> prompt = load_replay_case(golden.string()).prompt_tokens;
        const auto reference = prompt_logits(gguf, prompt);
        const double f32_error = relative_error(prompt_logits(hf32, prompt), reference);
        const double f16_error = relative_error(prompt_logits(hf16, prompt), reference);
        qInfo("relative logit error vs GGUF: HF F32 %.3g, HF F16 %.3g", f32_error, f16_error);
        QVERIFY(f32_error < 1e-5);
        QVERIFY(f16_error < 2e-2);  // half precision keeps 11 significant bits of every weight
        QVERIFY(f16_error > 0.0);   // it really is a different file
    }

    // An fp16 cache holds the same entries as float32 in half the bytes, and the logits stay
    // within half precision's rounding, after a context shift too (keys rotated in fp16).
    void fp16_cache_halves_the_bytes()
    {
        PYRAMID_REQUIRE_SHARED(model_path, "models/stories260K.gguf");
        PYRAMID_REQUIRE_SHARED(golden, "golden/reference_defaults.json");
        const std::vector<int32_t> prompt = load_replay_case(golden.string()).prompt_tokens;
        auto f32 = Model::open(model_path, {BackendPreference::Cpu, KvPrecision::F32});
        auto f16 = Model::open(model_path, {BackendPreference::Cpu, KvPrecision::F16});
        QCOMPARE(f16->backend().kv_entry_bytes() * 2, f32->backend().kv_entry_bytes());
        InferenceSession exact(f32->backend(), CompressionConfig{}), half(f16->backend(), CompressionConfig{});

        std::vector<float> reference = exact.prefill(prompt), logits = half.prefill(prompt);
        double worst = relative_error(logits, reference);
        for (int l = 0; l < exact.cache().n_layers(); ++l)
            QCOMPARE(half.cache().positions(l).size(), exact.cache().positions(l).size());
        QCOMPARE(half.cache().bytes() * 2, exact.cache().bytes());
        QVERIFY(half.cache().bytes() > 0);

        const int room = exact.context_length() - 150;  // keeps the sinks and 146 recent positions
        const int freed = exact.make_room(room);         // and renumbers them
        QVERIFY(freed > 0);
        QCOMPARE(half.make_room(room), freed);
        for (int step = 0; step < 8; ++step) {
            const int32_t next = Sampler::argmax(reference);
            reference = exact.decode(next);
            logits = half.decode(next);
            worst = std::max(worst, relative_error(logits, reference));
        }
        qInfo("largest relative logit error of the fp16 cache: %.3g", worst);
        QVERIFY(worst > 0.0);  // the entries really were rounded
        QVERIFY(worst < 1e-2);
    }

    // A prompt goes through each layer in slices of rows; any slice size gives the very same
    // logits and kept positions as one pass, PyramidInfer's probe rows included.
    void slices_change_no_result()
    {
        PYRAMID_REQUIRE_SHARED(model_path, "models/stories260K.gguf");
        PYRAMID_REQUIRE_SHARED(golden, "golden/reference_defaults.json");
        const ReplayRecord replay = load_replay_case(golden.string());
        auto model = Model::open(model_path, BackendPreference::Cpu);
        const auto run = [&](int slice_rows) {
            CpuBackend backend(model->files().weights, KvPrecision::F32, cpu::best_kernel_config(), slice_rows);
            InferenceSession session(backend, replay.config);
            std::vector<std::vector<float>> logits{session.prefill(replay.prompt_tokens)};
            for (int step = 0; step < 24; ++step)
                logits.push_back(session.decode(Sampler::argmax(logits.back())));
            std::vector<std::vector<int32_t>> kept;
            for (int l = 0; l < session.cache().n_layers(); ++l)
                kept.emplace_back(session.cache().positions(l).begin(), session.cache().positions(l).end());
            return std::pair{logits, kept};
        };
        const auto whole = run(1 << 20);
        for (int slice_rows : {16, 100, CpuBackend::kSliceRows})
            QVERIFY(run(slice_rows) == whole);
    }

    // A long prompt stops inside a layer, not after it, and leaves the session usable.
    void cancel_stops_a_prompt_inside_a_layer()
    {
        PYRAMID_REQUIRE_SHARED(model_path, "models/stories260K.gguf");
        auto model = Model::open(model_path, BackendPreference::Cpu);
        std::atomic<bool> cancel{false};
        CancelInsideLayer backend(model->backend(), cancel);
        InferenceSession session(backend, CompressionConfig{});
        std::vector<int32_t> prompt(300);
        for (size_t i = 0; i < prompt.size(); ++i)
            prompt[i] = static_cast<int32_t>(3 + (i * 31) % 500);
        QVERIFY_THROWS_EXCEPTION(Cancelled, session.prefill(prompt, &cancel));
        QCOMPARE(backend.layers_finished, 0);
        QCOMPARE(session.next_position(), 0);

        backend.armed = false;
        cancel = false;
        const std::vector<float> logits = session.prefill(prompt, &cancel);
        InferenceSession fresh(model->backend(), CompressionConfig{});
        QCOMPARE(logits, fresh.prefill(prompt));
        // The flag goes with the step: a later step without one is not stopped by it.
        backend.armed = true;
        session.reset();
        QCOMPARE(session.prefill(prompt), logits);
    }

    void prompt_longer_than_context_is_refused()
    {
        PYRAMID_REQUIRE_SHARED(model_path, "models/stories260K.gguf");
        auto model = Model::open(model_path, BackendPreference::Cpu);
        InferenceSession session(model->backend(), CompressionConfig{});
        std::vector<int32_t> prompt(static_cast<size_t>(model->config().context_length) + 1, 300);
        QVERIFY_THROWS_EXCEPTION(Error, session.prefill(prompt));
        QVERIFY_THROWS_EXCEPTION(Error, session.prefill(std::vector<int32_t>{}));
    }
};

QTEST_APPLESS_MAIN(FullModelTest)
#include "test_full_model.moc"
