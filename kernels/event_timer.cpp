#include "event_timer.h"

#include <algorithm>

#include "cuda_check.h"
#include "device_buffer.h"

namespace pyramid::cuda {

EventTimer::EventTimer(cudaStream_t stream) : stream_(stream)
{
    check(cudaEventCreate(&start_), "cudaEventCreate");
    const cudaError_t status = cudaEventCreate(&stop_);
    if (status != cudaSuccess) {
        cudaEventDestroy(start_);
        check(status, "cudaEventCreate");
    }
}

EventTimer::~EventTimer()
{
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
}

void EventTimer::start() { check(cudaEventRecord(start_, stream_), "cudaEventRecord"); }

double EventTimer::stop_ms()
{
    check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms;
}

double device_copy_bandwidth(cudaStream_t stream)
{
    const DeviceMemory m = device_memory();
    const size_t bytes = std::min<size_t>(size_t(1) << 30, m.free / 4) / 256 * 256;
    DeviceBuffer from(bytes, "the copy bandwidth test"), to(bytes, "the copy bandwidth test");
    EventTimer timer(stream);
    double best = 0;
    for (int attempt = 0; attempt < 5; ++attempt) {
        timer.start();
        check(cudaMemcpyAsync(to.data(), from.data(), bytes, cudaMemcpyDeviceToDevice, stream), "copy bandwidth test");
        const double ms = timer.stop_ms();
        if (attempt > 0)  // the first copy pays for first touches
            best = std::max(best, 2.0 * static_cast<double>(bytes) / (ms * 1e-3));
    }
    return best;
}

} // namespace pyramid::cuda
