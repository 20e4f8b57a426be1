#pragma once
// Which instruction set the CPU matmul kernels run on. The build targets baseline x86-64
// (SSE2), so the AVX2 kernels are compiled with function-level target attributes and chosen
// at run time, only on a CPU that has AVX2, FMA and F16C.
#include <string_view>

namespace pyramid::cpu {

enum class KernelIsa {
    Generic,  // portable C++ (the compiler's SSE2 vectorisation on x86-64)
    Avx2,     // AVX2 + FMA + F16C
};

std::string_view kernel_isa_name(KernelIsa isa);  // "generic", "avx2"

// Whether this CPU can run the kernels of `isa` (Generic always can).
bool kernel_isa_supported(KernelIsa isa);

// What cpu::matmul uses: the best supported ISA, unless the environment variable
// PYRAMID_CPU_KERNELS names another ("generic" or "avx2"; an unsupported or unknown name is
// logged and ignored). Decided once per process.
KernelIsa active_kernel_isa();

} // namespace pyramid::cpu
