#pragma once
// One spelling for launching a kernel and for its dynamic shared memory, whichever compiler
// builds the kernel: nvcc for the GPU, or a host C++ compiler for the CPU emulation that CI
// runs the GPU tests on (kernels/emulation). The GPU and the emulation run the same source.
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "grid_dependency.cuh"
#include "kernel_stream.h"

#if !defined(__CUDACC__)
#include "emulation/grid_launch.h"
#endif

namespace pyramid::cuda {

// kernel<<<grid, block, shared_bytes, stream>>>(args...), or with programmatic dependent launch
// where `stream` asks to overlap the kernel before (kernel_stream.h); arguments convert to the
// kernel's parameter types here, as they do at a launch. The kernel must begin with
// wait_for_prior_grids().
template <typename... Params, typename... Args>
void launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared_bytes, KernelStream stream,
                   Args&&... args)
{
#if defined(__CUDACC__)
    if (!stream.overlap_prior) {
        kernel<<<grid, block, shared_bytes, stream.stream>>>(std::forward<Args>(args)...);
        return;
    }
    cudaLaunchAttribute overlap{};
    overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    overlap.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = shared_bytes;
    config.stream = stream.stream;
    config.attrs = &overlap;
    config.numAttrs = 1;
    // As with <<<>>>, a failure is left for cudaGetLastError, where launches are checked (a
    // runtime call's error is also the thread's last error).
    (void)cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
#else
    emulation::launch_grid(kernel, grid, block, shared_bytes, stream.stream, stream.overlap_prior,
                           std::forward<Args>(args)...);
#endif
}

// The block's dynamic shared memory (the launch's shared_bytes), as an array of T.
template <typename T>
__device__ __forceinline__ T* dynamic_shared_memory()
{
#if defined(__CUDACC__)
    extern __shared__ float4 dynamic_shared_words[];  // float4: 16-byte aligned for any T
    return reinterpret_cast<T*>(dynamic_shared_words);
#else
    return static_cast<T*>(emulation::dynamic_shared_memory());
#endif
}

} // namespace pyramid::cuda
