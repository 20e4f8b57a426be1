#pragma once
// Kernel launches on the emulated device (see kernel_launch.cuh): the arguments are copied
// at the launch, as the hardware does, and the grid runs in stream order when the host next
// synchronizes with the emulated device.
#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include "emulation/block_scheduler.h"

namespace pyramid::cuda::emulation {

// Checks the launch configuration (a bad one becomes cudaGetLastError's error, as on the GPU)
// and queues the grid on `stream`; `overlapped`: launched to overlap the grid before it
// (KernelStream::overlap_prior), which run_grid holds the kernel to.
void enqueue_grid(const void* kernel, dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream,
                  bool overlapped, std::function<void()> thread_body);

template <typename... Params, typename... Args>
void launch_grid(void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream,
                 bool overlapped, Args&&... args)
{
    auto copied = std::make_shared<std::tuple<std::decay_t<Params>...>>(std::forward<Args>(args)...);
    enqueue_grid(reinterpret_cast<const void*>(kernel), grid, block, shared_bytes, stream, overlapped,
                 [kernel, copied] { std::apply(kernel, *copied); });
}

} // namespace pyramid::cuda::emulation
