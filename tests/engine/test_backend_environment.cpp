// Backend options as values (issue 34): what with_environment() reads and where it stops, and
// the GPU cache types one app setting maps to. The engine itself reads no environment; this is
// the one place a program's edge does (backend/backend_environment.h).
#include <QtTest>

#include <cstdlib>
#include <string>

#include "backend/backend_environment.h"
#include "backend/cuda_backend_options.h"
#include "util/error.h"

using namespace pyramid;

namespace {

const char* const kVariables[] = {"PYRAMID_CPU_KERNELS", "PYRAMID_CPU_QUANT_DOT", "PYRAMID_CUDA_PRECISION",
                                  "PYRAMID_CUDA_DEVICE", "PYRAMID_CUDA_GRAPHS", "PYRAMID_CUDA_OVERLAP",
                                  "PYRAMID_CUDA_CHUNK_ROWS", "PYRAMID_BACKEND_DIR", "OMP_NUM_THREADS"};

void clear_environment()
{
    for (const char* variable : kVariables)
        unsetenv(variable);
}

std::string error_of(const BackendOptions& options)
{
    try {
        with_environment(options);
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

} // namespace

class BackendEnvironmentTest : public QObject {
    Q_OBJECT
private slots:
    void init() { clear_environment(); }
    void cleanupTestCase() { clear_environment(); }

    void without_variables_the_options_stay_as_given()
    {
        BackendOptions given(BackendPreference::Cuda, KvPrecision::Q8);
        given.cuda.device = 2;
        given.cuda.graphs = cuda::StepGraphs::Off;
        const BackendOptions seen = with_environment(given);
        QCOMPARE(seen.device, BackendPreference::Cuda);
        QVERIFY(seen.cpu_kv == KvTypes(KvPrecision::Q8));
        QCOMPARE(seen.cuda.device, 2);
        QCOMPARE(seen.cuda.graphs, cuda::StepGraphs::Off);
        QCOMPARE(seen.cuda.precision, cuda::Precision::Fp16);
        QVERIFY(seen.plugin_dir.empty());
        QCOMPARE(seen.cpu_kernels.isa, cpu::best_kernel_config().isa);
    }

    void the_variables_set_what_they_name()
    {
        setenv("PYRAMID_CUDA_PRECISION", "fp32", 1);
        setenv("PYRAMID_CUDA_DEVICE", "1", 1);
        setenv("PYRAMID_CUDA_GRAPHS", "on", 1);
        setenv("PYRAMID_CUDA_CHUNK_ROWS", "1024", 1);
        setenv("PYRAMID_BACKEND_DIR", "/opt/pyramid/lib", 1);
        setenv("PYRAMID_CPU_KERNELS", "generic", 1);
        const BackendOptions seen = with_environment(BackendPreference::Auto);
        QCOMPARE(seen.cuda.precision, cuda::Precision::Fp32);
        QCOMPARE(seen.cuda.device, 1);
        QCOMPARE(seen.cuda.graphs, cuda::StepGraphs::On);
        QCOMPARE(seen.cuda.chunk_rows, 1024);
        QCOMPARE(seen.plugin_dir.string(), std::string("/opt/pyramid/lib"));
        setenv("PYRAMID_CUDA_CHUNK_ROWS", "auto", 1);
        BackendOptions given(BackendPreference::Auto);
        given.cuda.chunk_rows = 7;
        QCOMPARE(with_environment(given).cuda.chunk_rows, 0);
        // Generic kernels bring the exact dot: the int8 one needs AVX2.
        QCOMPARE(seen.cpu_kernels.isa, cpu::KernelIsa::Generic);
        QCOMPARE(seen.cpu_kernels.quantized_dot, cpu::QuantizedDot::Exact);
    }

    void a_value_that_changes_what_runs_is_an_error_naming_the_variable()
    {
        setenv("PYRAMID_CUDA_PRECISION", "fp8", 1);
        QVERIFY(error_of({}).starts_with("PYRAMID_CUDA_PRECISION: unknown CUDA precision 'fp8'"));
        unsetenv("PYRAMID_CUDA_PRECISION");
        setenv("PYRAMID_CUDA_DEVICE", "first", 1);
        QVERIFY(error_of({}).starts_with("PYRAMID_CUDA_DEVICE: "));
        unsetenv("PYRAMID_CUDA_DEVICE");
        setenv("PYRAMID_CUDA_GRAPHS", "sometimes", 1);
        QVERIFY(error_of({}).starts_with("PYRAMID_CUDA_GRAPHS: unknown CUDA graph mode"));
        unsetenv("PYRAMID_CUDA_GRAPHS");
        for (const char* rows : {"0", "4097", "512 rows", "-1"}) {
            setenv("PYRAMID_CUDA_CHUNK_ROWS", rows, 1);
            QVERIFY2(error_of({}).starts_with("PYRAMID_CUDA_CHUNK_ROWS: rows a layer runs at once are a number"), rows);
        }
    }

    void every_kernel_isa_can_be_named()
    {
        // Each name kernel_isa_name gives is one PYRAMID_CPU_KERNELS takes: the ISA itself where
        // the CPU runs it, else the options as given. The int8 dot goes with every AVX2 one.
        for (const cpu::KernelIsa isa : {cpu::KernelIsa::Generic, cpu::KernelIsa::Avx2, cpu::KernelIsa::Avx512Vnni}) {
            setenv("PYRAMID_CPU_KERNELS", std::string(cpu::kernel_isa_name(isa)).c_str(), 1);
            BackendOptions given;
            given.cpu_kernels = {cpu::KernelIsa::Generic, cpu::QuantizedDot::Exact};
            const BackendOptions seen = with_environment(given);
            QCOMPARE(seen.cpu_kernels.isa, cpu::kernel_isa_supported(isa) ? isa : cpu::KernelIsa::Generic);
        }
        QCOMPARE(std::string(cpu::kernel_isa_name(cpu::KernelIsa::Avx512Vnni)), std::string("avx512vnni"));
        // The best kernels include the AVX2 ones wherever the CPU has AVX2.
        QCOMPARE(cpu::runs_avx2(cpu::best_kernel_config().isa), cpu::kernel_isa_supported(cpu::KernelIsa::Avx2));
    }

    void a_kernel_name_that_cannot_run_is_ignored()
    {
        // Kernels are a matter of speed: an unknown name leaves the options as given.
        setenv("PYRAMID_CPU_KERNELS", "avx9000", 1);
        setenv("PYRAMID_CPU_QUANT_DOT", "fast", 1);
        const BackendOptions given;
        const BackendOptions seen = with_environment(given);
        QCOMPARE(seen.cpu_kernels.isa, given.cpu_kernels.isa);
        QCOMPARE(seen.cpu_kernels.quantized_dot, given.cpu_kernels.quantized_dot);
    }

    // OpenMP's own variable counts where the program leaves the CPU's threads automatic (0),
    // never over a count it chose; what is no count is ignored (threads are a matter of speed).
    void omp_num_threads_sets_the_cpu_threads_left_automatic()
    {
        QCOMPARE(with_environment({}).cpu_threads, 0);
        setenv("OMP_NUM_THREADS", "3", 1);
        QCOMPARE(with_environment({}).cpu_threads, 3);
        BackendOptions chosen;
        chosen.cpu_threads = 5;
        QCOMPARE(with_environment(chosen).cpu_threads, 5);
        setenv("OMP_NUM_THREADS", "6,2", 1);  // threads of nested regions follow the comma
        QCOMPARE(with_environment({}).cpu_threads, 6);
        for (const char* value : {"many", "0", "-2", "4 threads", ",4"}) {
            setenv("OMP_NUM_THREADS", value, 1);
            QVERIFY2(with_environment({}).cpu_threads == 0, value);
        }
    }

    void one_cache_setting_maps_to_what_a_gpu_stores()
    {
        using cuda::Precision;
        using K = KvPrecision;
        QVERIFY(!cuda::cuda_kv_types_for(K::F16, Precision::Fp16));
        QVERIFY(!cuda::cuda_kv_types_for(K::F32, Precision::Fp16));  // fp16 in float32's place
        QVERIFY(!cuda::cuda_kv_types_for(K::F16, Precision::Fp32));
        QVERIFY(cuda::cuda_kv_types_for(K::Q8, Precision::Fp16) == KvTypes(K::Q8));
        QVERIFY(cuda::cuda_kv_types_for({K::F32, K::Q4}, Precision::Fp16) == KvTypes(K::F16, K::Q4));
        QVERIFY(cuda::cuda_kv_types_for({K::Q8, K::F16}, Precision::Fp32) == KvTypes(K::Q8, K::F32));
        // What an estimate counts: the same types, the precision's own spelled out.
        QVERIFY(cuda::cuda_stored_kv_types(K::F32, Precision::Fp16) == KvTypes(K::F16));
        QVERIFY(cuda::cuda_stored_kv_types(K::F16, Precision::Fp32) == KvTypes(K::F32));
        QVERIFY(cuda::cuda_stored_kv_types({K::Q4, K::F32}, Precision::Fp16) == KvTypes(K::Q4, K::F16));
        QVERIFY(cuda::cuda_stored_kv_types(K::Q8, Precision::Fp32) == KvTypes(K::Q8));
    }
};

QTEST_APPLESS_MAIN(BackendEnvironmentTest)
#include "test_backend_environment.moc"
