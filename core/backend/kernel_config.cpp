#include "backend/kernel_config.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace pyramid::cpu {

std::string_view kernel_isa_name(KernelIsa isa)
{
    switch (isa) {
    case KernelIsa::Avx2: return "avx2";
    case KernelIsa::Avx512Vnni: return "avx512vnni";
    default: return "generic";
    }
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
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c;
    if (isa == KernelIsa::Avx2)
        return avx2;
    return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
#else
    return false;
#endif
}

KernelConfig best_kernel_config()
{
    static const KernelIsa best = kernel_isa_supported(KernelIsa::Avx512Vnni) ? KernelIsa::Avx512Vnni
                                  : kernel_isa_supported(KernelIsa::Avx2)      ? KernelIsa::Avx2
                                                                               : KernelIsa::Generic;  // CPUID once
    return best == KernelIsa::Generic ? KernelConfig{} : KernelConfig{best, QuantizedDot::Int8};
}

} // namespace pyramid::cpu
