#include "emulation/grid_launch.h"

#include "emulation/emulated_device.h"

namespace pyramid::cuda::emulation {
namespace {

bool valid_shape(dim3 grid, dim3 block)
{
    const unsigned long long threads = 1ull * block.x * block.y * block.z;
    return threads >= 1 && threads <= 1024 && block.x <= 1024 && block.y <= 1024 && block.z <= 64 && grid.x >= 1 &&
           grid.x <= 0x7fffffffu && grid.y >= 1 && grid.y <= 65535 && grid.z >= 1 && grid.z <= 65535;
}

} // namespace

void enqueue_grid(const void* kernel, dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream,
                  bool overlapped, std::function<void()> thread_body)
{
    EmulatedDevice& device = EmulatedDevice::instance();
    if (!valid_shape(grid, block)) {
        device.set_error(cudaErrorInvalidConfiguration);
        return;
    }
    if (shared_bytes > device.max_dynamic_shared(kernel) || !device.is_stream(stream)) {
        device.set_error(cudaErrorInvalidValue);
        return;
    }
    device.count_grid(overlapped);
    device.enqueue(
        stream, [kernel, grid, block, shared_bytes, overlapped, body = std::move(thread_body)] {
            run_grid(kernel, grid, block, shared_bytes, overlapped, body);
        },
        kernel);
}

} // namespace pyramid::cuda::emulation
