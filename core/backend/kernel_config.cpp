#include "backend/kernel_isa.h"

#include <cstdlib>
#include <string>

#include <spdlog/spdlog.h>

namespace pyramid::cpu {
namespace {

KernelIsa choose_isa()
{
    const KernelIsa best = kernel_isa_supported(KernelIsa::Avx2) ? KernelIsa::Avx2 : KernelIsa::Generic;
    const char* requested = std::getenv("PYRAMID_CPU_KERNELS");
    if (!requested || !*requested)
        return best;
    for (KernelIsa isa : {KernelIsa::Generic, KernelIsa::Avx2}) {
        if (kernel_isa_name(isa) != requested)
            continue;
        if (kernel_isa_supported(isa))
            return isa;
        spdlog::warn("PYRAMID_CPU_KERNELS={}: this CPU cannot run those kernels; using {}", requested,
                     kernel_isa_name(best));
        return best;
    }
    spdlog::warn("PYRAMID_CPU_KERNELS={} is not a kernel set (known: generic, avx2); using {}", requested,
                 kernel_isa_name(best));
    return best;
}

} // namespace

std::string_view kernel_isa_name(KernelIsa isa)
{
    return isa == KernelIsa::Avx2 ? "avx2" : "generic";
}

bool kernel_isa_supported(KernelIsa isa)
{
    if (isa == KernelIsa::Generic)
        return true;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
#else
    return false;
#endif
}

KernelIsa active_kernel_isa()
{
    static const KernelIsa isa = choose_isa();
    return isa;
}

} // namespace pyramid::cpu
