#pragma once
// The first statement of every kernel in this library: wait_for_prior_grids(). See
// kernel_stream.h for why kernels may be launched before the kernel ahead of them has ended.
#if !defined(__CUDACC__)
#include "emulation/block_scheduler.h"
#endif

namespace pyramid::cuda {

// Waits until the grids this one was launched to overlap (KernelStream::overlap_prior) have
// ended and their memory writes are visible, then lets the next kernel of the stream be
// launched, if it asked to overlap this one. Nothing to wait for in a plain stream-order
// launch, where it returns at once. Every thread calls it before it reads or writes global
// memory, so a grid launched early never sees its predecessor's work half done; releasing the
// next launch at the start is safe because that kernel waits in the same way.
__device__ __forceinline__ void wait_for_prior_grids()
{
#if defined(__CUDACC__)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
#else
    emulation::wait_for_prior_grids();
#endif
}

} // namespace pyramid::cuda
