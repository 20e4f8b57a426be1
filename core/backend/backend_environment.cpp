#include "backend/backend_environment.h"

#include <cstdlib>
#include <initializer_list>
#include <string>

#include <spdlog/spdlog.h>

#include "util/error.h"

namespace pyramid {
namespace {

const char* variable_value(const char* variable)
{
    const char* value = std::getenv(variable);
    return value && *value ? value : nullptr;
}

// The value of `variable` among `choices` (by name), or `fallback` when unset or unusable.
template <typename T, typename Name, typename Usable>
T kernel_choice(const char* variable, std::initializer_list<T> choices, T fallback, Name name, Usable usable)
{
    const char* requested = variable_value(variable);
    if (!requested)
        return fallback;
    for (T choice : choices) {
        if (name(choice) != requested)
            continue;
        if (usable(choice))
            return choice;
        spdlog::warn("{}={} cannot run on this CPU; using {}", variable, requested, name(fallback));
        return fallback;
    }
    std::string known;
    for (T choice : choices)
        known += (known.empty() ? "" : ", ") + std::string(name(choice));
    spdlog::warn("{}={} is not one of {}; using {}", variable, requested, known, name(fallback));
    return fallback;
}

// parse(value) for a set variable; its Error names the variable.
template <typename T, typename Parse>
void read_cuda_option(const char* variable, T& option, Parse parse)
{
    const char* value = variable_value(variable);
    if (!value)
        return;
    try {
        option = parse(value);
    } catch (const Error& e) {
        throw Error(std::string(variable) + ": " + e.what());
    }
}

int parse_device_index(const std::string& text)
{
    char* end = nullptr;
    const long index = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || index < 0 || index > 1024)
        throw Error("a device index is a number from 0, not '" + text + "'");
    return static_cast<int>(index);
}

// OMP_NUM_THREADS's first count ("8" or the nested form "8,2"); 0 when unset or not a count.
int omp_num_threads()
{
    const char* value = variable_value("OMP_NUM_THREADS");
    if (!value)
        return 0;
    char* end = nullptr;
    const long threads = std::strtol(value, &end, 10);
    if (end == value || (*end != '\0' && *end != ',') || threads < 1 || threads > 4096) {
        spdlog::warn("OMP_NUM_THREADS={} is not a thread count; the CPU runs on one thread per performance core",
                     value);
        return 0;
    }
    return static_cast<int>(threads);
}

} // namespace

cpu::KernelConfig kernel_config_from_environment(cpu::KernelConfig fallback)
{
    using cpu::KernelIsa;
    using cpu::QuantizedDot;
    cpu::KernelConfig c;
    c.isa = kernel_choice("PYRAMID_CPU_KERNELS", {KernelIsa::Generic, KernelIsa::Avx2, KernelIsa::Avx512Vnni}, fallback.isa,
                          cpu::kernel_isa_name, cpu::kernel_isa_supported);
    const bool avx2 = cpu::runs_avx2(c.isa);
    // The Int8 dot needs AVX2: a generic ISA asked for brings Exact with it unless asked otherwise.
    const QuantizedDot dot = avx2 ? fallback.quantized_dot : QuantizedDot::Exact;
    c.quantized_dot = kernel_choice("PYRAMID_CPU_QUANT_DOT", {QuantizedDot::Exact, QuantizedDot::Int8}, dot,
                                    cpu::quantized_dot_name,
                                    [avx2](QuantizedDot d) { return d == QuantizedDot::Exact || avx2; });
    return c;
}

BackendOptions with_environment(BackendOptions options)
{
    options.cpu_kernels = kernel_config_from_environment(options.cpu_kernels);
    if (options.cpu_threads == 0)
        options.cpu_threads = omp_num_threads();
    read_cuda_option("PYRAMID_CUDA_PRECISION", options.cuda.precision, cuda::parse_precision);
    read_cuda_option("PYRAMID_CUDA_DEVICE", options.cuda.device, parse_device_index);
    read_cuda_option("PYRAMID_CUDA_GRAPHS", options.cuda.graphs, cuda::parse_step_graphs);
    read_cuda_option("PYRAMID_CUDA_OVERLAP", options.cuda.overlap_launches,
                     [](const std::string& text) { return cuda::parse_on_off(text, "CUDA launch overlap"); });
    read_cuda_option("PYRAMID_CUDA_CHUNK_ROWS", options.cuda.chunk_rows, cuda::parse_chunk_rows);
    if (const char* dir = variable_value("PYRAMID_BACKEND_DIR"))
        options.plugin_dir = dir;
    return options;
}

} // namespace pyramid
