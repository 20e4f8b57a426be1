#include "backend/cache_rows.h"

namespace pyramid::cpu {

HalfRowKernels half_row_kernels(KernelIsa isa)
{
    if (isa == KernelIsa::Avx2)
        return detail::half_row_kernels_avx2();
    return {rows_dot<Half>, rows_accumulate<Half>};
}

} // namespace pyramid::cpu
