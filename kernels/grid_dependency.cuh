#pragma once
// The first statement of every kernel in this library: wait_for_prior_grids(), or before it
// only prefetch_to_l2(). See kernel_stream.h for why kernels may be launched before the kernel
// ahead of them has ended.
#include <cstddef>
#include <cstdint>

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

// The bytes L2 fetches per request.
constexpr size_t kL2LineBytes = 128;

// Asks L2 to fetch [data, data + bytes), the threads of the calling (one-dimensional) block
// sharing its lines. A hint: no value reaches the caller and L2 is where every write of the
// device lands, so it may come before wait_for_prior_grids() and can never read stale data.
// That is what it is for: a grid launched to overlap the one before it asks for memory no kernel
// writes (a matvec's weights) first, and those bytes arrive while the kernel before ends.
__device__ __forceinline__ void prefetch_to_l2(const void* data, size_t bytes)
{
    if (bytes == 0)
        return;
    const auto begin = reinterpret_cast<uintptr_t>(data), end = begin + bytes;
    for (uintptr_t line = begin / kL2LineBytes * kL2LineBytes + threadIdx.x * kL2LineBytes; line < end;
         line += uintptr_t(blockDim.x) * kL2LineBytes) {
#if defined(__CUDACC__)
        const void* at = reinterpret_cast<const void*>(line);
        asm volatile("prefetch.global.L2 [%0];" ::"l"(__cvta_generic_to_global(at)));
#else
        const uintptr_t piece = line < begin ? begin : line;
        const uintptr_t piece_end = line + kL2LineBytes < end ? line + kL2LineBytes : end;
        emulation::prefetch_to_l2(reinterpret_cast<const void*>(piece), piece_end - piece);
#endif
    }
}

} // namespace pyramid::cuda
