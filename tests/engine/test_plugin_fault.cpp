// Failures cross the backend plugin's boundary as values (backend/plugin_fault.h): a backend
// wrapped as the library wraps it (fault_catching_backend) inside what the engine wraps around
// it (fault_raising_backend) computes exactly what it computes alone, its stores reach it as
// its own, and whatever it throws arrives on the engine's side as the engine's type with the
// message, after which the next call works. Here the "library" is the CPU backend, so every
// part runs in CI; the emulated CUDA tests load the real library through the same wrappers.
#include <QtTest>

#include <memory>
#include <new>
#include <stdexcept>

#include "backend/cpu_backend.h"
#include "backend/forwarding_backend.h"
#include "backend/kv_block_allocator.h"
#include "backend/plugin_fault.h"
#include "kv/compression_config.h"
#include "generate/inference_session.h"
#include "model/model.h"
#include "shared_data.h"
#include "stories_prompt.h"
#include "util/error.h"

using namespace pyramid;

namespace {

// Throws what it is told to from its next layer step, once.
class ThrowingBackend final : public ForwardingBackend {
public:
    using ForwardingBackend::ForwardingBackend;
    std::function<void()> next_failure;

    void run_layer_batch(int layer, HiddenStates& hidden, std::span<const SequenceRows> sequences) override
    {
        if (auto fail = std::exchange(next_failure, nullptr))
            fail();
        ForwardingBackend::run_layer_batch(layer, hidden, sequences);
    }
};

// `inner` as the engine sees a library's backend: caught on one side, raised on the other.
std::unique_ptr<Backend> across_the_boundary(std::unique_ptr<Backend> inner)
{
    auto fault = std::make_unique<PluginFault>();
    PluginFault* slot = fault.get();
    return fault_raising_backend(fault_catching_backend(std::move(inner), slot), std::move(fault));
}

} // namespace

class PluginFaultTest : public QObject {
    Q_OBJECT
private slots:
    void a_backend_across_the_boundary_computes_what_it_does_alone()
    {
        PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
        const auto model = Model::open(path, BackendPreference::Cpu);
        CpuBackend direct(model->files().weights);
        const auto wrapped = across_the_boundary(std::make_unique<CpuBackend>(model->files().weights));
        QCOMPARE(wrapped->info().name, std::string("cpu"));
        QCOMPARE(wrapped->kv_entry_bytes(), direct.kv_entry_bytes());

        // PyramidInfer (the default policy) compacts the stores and probes through them: every
        // store call crosses (the prompt is longer than its min_context_length, 64).
        const CompressionConfig pyramid;
        InferenceSession alone(direct, pyramid), across(*wrapped, pyramid);
        QVERIFY(alone.prefill(test::stories_prompt()) == across.prefill(test::stories_prompt()));
        for (int32_t token : {300, 301, 302, 303})
            QVERIFY(alone.decode(token) == across.decode(token));
    }

    void what_the_backend_throws_arrives_as_the_engines_type()
    {
        PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
        const auto model = Model::open(path, BackendPreference::Cpu);
        CpuBackend cpu(model->files().weights);
        auto throwing = std::make_unique<ThrowingBackend>(cpu);
        ThrowingBackend& inner = *throwing;
        const auto wrapped = across_the_boundary(std::move(throwing));
        InferenceSession session(*wrapped, CompressionConfig::full_cache());
        const auto step = [&] { session.prefill(test::stories_prompt()); };

        inner.next_failure = [] { throw Error("tensor blk.0.attn_q is short"); };
        QVERIFY_THROWS_EXCEPTION(Error, step());
        inner.next_failure = [] { throw Error("tensor blk.0.attn_q is short"); };
        try {
            step();
        } catch (const Error& e) {
            QCOMPARE(std::string(e.what()), std::string("tensor blk.0.attn_q is short"));
        }
        inner.next_failure = [] { throw KvMemoryExhausted("no KV block left"); };
        QVERIFY_THROWS_EXCEPTION(KvMemoryExhausted, step());
        inner.next_failure = [] { throw Cancelled(); };
        QVERIFY_THROWS_EXCEPTION(Cancelled, step());
        inner.next_failure = [] { throw std::bad_alloc(); };
        QVERIFY_THROWS_EXCEPTION(std::bad_alloc, step());
        inner.next_failure = [] { throw std::out_of_range("vector::at"); };
        try {
            step();
            QFAIL("a standard exception was lost");
        } catch (const Error& e) {
            QCOMPARE(std::string(e.what()), std::string("vector::at"));
        }
        inner.next_failure = [] { throw 42; };
        try {
            step();
            QFAIL("an exception of no known type was lost");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("unknown type") != std::string::npos, e.what());
        }

        // The fault was read and cleared each time: a step after them all succeeds, and gives
        // what the backend gives alone.
        InferenceSession reference(cpu, CompressionConfig::full_cache());
        QVERIFY(InferenceSession(*wrapped, CompressionConfig::full_cache()).prefill(test::stories_prompt()) ==
                reference.prefill(test::stories_prompt()));
    }

    void a_store_that_cannot_grow_says_so_across_the_boundary()
    {
        PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
        const auto model = Model::open(path, BackendPreference::Cpu);
        CpuBackend probe(model->files().weights);
        const size_t block_bytes = 16 * probe.kv_entry_bytes();
        // Two blocks of 16 entries for every cache together.
        const auto wrapped = across_the_boundary(std::make_unique<CpuBackend>(
            model->files().weights, KvPrecision::F32, cpu::best_kernel_config(), CpuBackend::kSliceRows,
            CpuKvMemory{16, 2 * block_bytes}));
        auto store = wrapped->new_kv_layer();
        store->reserve(32);
        QVERIFY_THROWS_EXCEPTION(KvMemoryExhausted, store->reserve(33));
        store->release_unused();
        QCOMPARE(store->size(), 0);
        QCOMPARE(store->bytes(), size_t(0));
    }
};

QTEST_APPLESS_MAIN(PluginFaultTest)
#include "test_plugin_fault.moc"
