#pragma once
// One spelling for launching a kernel and for its dynamic shared memory, whichever compiler
// builds the kernel: nvcc for the GPU, or a host C++ compiler for the CPU emulation that CI
// runs the GPU tests on (kernels/emulation). The GPU and the emulation run the same source.
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#if !defined(__CUDACC__)
#include "emulation/grid_launch.h"
#endif

namespace pyramid::cuda {

// kernel<<<grid, block, shared_bytes, stream>>>(args...); arguments convert to the kernel's
// parameter types here, as they do at a launch.
template <typename... Params, typename... Args>
void launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream,
                   Args&&... args)
{
#if defined(__CUDACC__)
    kernel<<<grid, block, shared_bytes, stream>>>(std::forward<Args>(args)...);
#else
    emulation::launch_grid(kernel, grid, block, shared_bytes, stream, std::forward<Args>(args)...);
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
