#include "backend/kernel_config.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <cstdlib>
#include <initializer_list>
#include <string>

#include <spdlog/spdlog.h>

namespace pyramid::cpu {
namespace {

// The value of `variable` among `choices` (by name), or `fallback` when unset or unusable.
template <typename T, typename Name, typename Usable>
T from_environment(const char* variable, std::initializer_list<T> choices, T fallback, Name name, Usable usable)
{
    const char* requested = std::getenv(variable);
    if (!requested || !*requested)
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

KernelConfig choose_config()
{
    KernelConfig c;
    const KernelIsa best = kernel_isa_supported(KernelIsa::Avx2) ? KernelIsa::Avx2 : KernelIsa::Generic;
    c.isa = from_environment("PYRAMID_CPU_KERNELS", {KernelIsa::Generic, KernelIsa::Avx2}, best, kernel_isa_name,
                             kernel_isa_supported);
    const bool avx2 = c.isa == KernelIsa::Avx2;
    c.quantized_dot = from_environment(
        "PYRAMID_CPU_QUANT_DOT", {QuantizedDot::Exact, QuantizedDot::Int8},
        avx2 ? QuantizedDot::Int8 : QuantizedDot::Exact, quantized_dot_name,
        [avx2](QuantizedDot d) { return d == QuantizedDot::Exact || avx2; });
    return c;
}

} // namespace

std::string_view kernel_isa_name(KernelIsa isa)
{
    return isa == KernelIsa::Avx2 ? "avx2" : "generic";
}

std::string_view quantized_dot_name(QuantizedDot d)
{
    return d == QuantizedDot::Int8 ? "int8" : "exact";
}

bool kernel_isa_supported(KernelIsa isa)
{
    if (isa == KernelIsa::Generic)
        return true;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    // F16C from CPUID leaf 1 directly: older clang's __builtin_cpu_supports does not know it.
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c;
#else
    return false;
#endif
}

KernelConfig active_kernel_config()
{
    static const KernelConfig config = choose_config();
    return config;
}

} // namespace pyramid::cpu
