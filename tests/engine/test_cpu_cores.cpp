// The CPU backend's thread count (backend/cpu_cores.h): the cores hwloc counts on made-up
// machines (hardware threads and performance/efficiency kinds, as Intel's hybrid processors
// have), on this one, and a backend that runs on the count it is given, computing the same
// logits and keeping the same entries under PyramidInfer on one thread, two or three.
#include <QtTest>

#include <algorithm>
#include <memory>
#include <string>

#include <omp.h>

#include "backend/cpu_backend.h"
#include "backend/cpu_cores.h"
#include "generate/inference_session.h"
#include "kv/compression_config.h"
#include "model/model.h"
#include "shared_data.h"
#include "stories_prompt.h"

#ifdef PYRAMID_HAVE_HWLOC
#include <hwloc.h>
#endif

using namespace pyramid;

namespace {

#ifdef PYRAMID_HAVE_HWLOC
struct Topology {
    hwloc_topology_t t = nullptr;
    // `synthetic`: hwloc's description of a machine, e.g. "core:4 pu:2".
    explicit Topology(const char* synthetic)
    {
        hwloc_topology_init(&t);
        hwloc_topology_set_synthetic(t, synthetic);
        hwloc_topology_load(t);
    }
    ~Topology() { hwloc_topology_destroy(t); }

    // Marks the hardware threads [first, last] as one kind of core of `efficiency` (-1: unknown).
    void kind(unsigned first, unsigned last, int efficiency)
    {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        hwloc_bitmap_set_range(set, first, static_cast<int>(last));
        hwloc_cpukinds_register(t, set, efficiency, 0, nullptr, 0);
        hwloc_bitmap_free(set);
    }
};
#endif

} // namespace

class CpuCoresTest : public QObject {
    Q_OBJECT
private slots:
    void one_thread_per_core_of_a_machine_with_two_per_core()
    {
#ifdef PYRAMID_HAVE_HWLOC
        Topology machine("core:4 pu:2");
        const CpuCores cores = cpu_cores(machine.t);
        QCOMPARE(cores.logical, 8);
        QCOMPARE(cores.physical, 4);
        QCOMPARE(cores.performance, 4);
        QCOMPARE(default_cpu_threads(cores), 4);
#else
        QSKIP("built without hwloc (PYRAMID_HWLOC=OFF)");
#endif
    }

    // A hybrid processor: 4 performance cores of 2 hardware threads and 4 efficiency cores
    // (made up as 8 cores of 2: hwloc's synthetic machines have one shape).
    void only_the_performance_cores_of_a_hybrid_processor()
    {
#ifdef PYRAMID_HAVE_HWLOC
        Topology machine("core:8 pu:2");
        machine.kind(0, 7, 1);   // performance
        machine.kind(8, 15, 0);  // efficiency
        const CpuCores cores = cpu_cores(machine.t);
        QCOMPARE(cores.logical, 16);
        QCOMPARE(cores.physical, 8);
        QCOMPARE(cores.performance, 4);
        QCOMPARE(default_cpu_threads(cores), 4);

        // Kinds hwloc cannot rank say nothing of speed: every core counts.
        Topology unranked("core:8 pu:2");
        unranked.kind(0, 7, -1);
        unranked.kind(8, 15, -1);
        QCOMPARE(cpu_cores(unranked.t).performance, 8);
#else
        QSKIP("built without hwloc (PYRAMID_HWLOC=OFF)");
#endif
    }

    void this_machines_cores_are_the_cpus_the_process_may_use()
    {
        const CpuCores cores = cpu_cores();
        QCOMPARE(cores.logical, omp_get_num_procs());
        QVERIFY(cores.physical >= 1 && cores.physical <= cores.logical);
        QVERIFY(cores.performance >= 1 && cores.performance <= cores.physical);
    }

    void a_backend_runs_on_the_threads_it_is_given()
    {
        PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
        const auto model = Model::open(path, BackendPreference::Cpu);
        const ModelWeights& weights = model->files().weights;
        CpuBackend one(weights, KvPrecision::F32, cpu::best_kernel_config(), CpuBackend::kSliceRows, {}, 1);
        CpuBackend two(weights, KvPrecision::F32, cpu::best_kernel_config(), CpuBackend::kSliceRows, {}, 2);
        CpuBackend automatic(weights);
        QVERIFY(one.info().device.starts_with("1 threads, "));
        QVERIFY(two.info().device.starts_with("2 threads, "));
        QVERIFY(automatic.info().device.starts_with(std::to_string(default_cpu_threads(cpu_cores())) + " threads, "));

        // Each output row is one thread's sum whatever the count, and the probe's columns add up
        // in slots of their own (cpu_kernels.cpp): the same floats, so the same selections.
        CpuBackend three(weights, KvPrecision::F32, cpu::best_kernel_config(), CpuBackend::kSliceRows, {}, 3);
        const CompressionConfig pyramid;  // PyramidInfer, the paper's settings
        InferenceSession on_one(one, pyramid), on_two(two, pyramid), on_three(three, pyramid);
        const std::vector<float> logits = on_one.prefill(test::stories_prompt());
        QVERIFY(on_two.prefill(test::stories_prompt()) == logits);
        QVERIFY(on_three.prefill(test::stories_prompt()) == logits);
        for (int32_t token : {300, 301, 302}) {
            const std::vector<float> next = on_one.decode(token);
            QVERIFY(on_two.decode(token) == next);
            QVERIFY(on_three.decode(token) == next);
        }
        const KvCache& kept = on_one.cache();
        QVERIFY(kept.length(kept.n_layers() - 1) < kept.length(0));  // it did select
        for (int layer = 0; layer < kept.n_layers(); ++layer) {
            const auto positions = kept.positions(layer);
            for (const InferenceSession* other : {&on_two, &on_three}) {
                const auto theirs = other->cache().positions(layer);
                QVERIFY(std::equal(positions.begin(), positions.end(), theirs.begin(), theirs.end()));
            }
        }
    }
};

QTEST_APPLESS_MAIN(CpuCoresTest)
#include "test_cpu_cores.moc"
