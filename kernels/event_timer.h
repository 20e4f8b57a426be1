#pragma once
// Times work queued on a stream with a pair of CUDA events: the device's own clock, so the
// host's time spent queuing does not count.
#include <cuda_runtime.h>

namespace pyramid::cuda {

class EventTimer {
public:
    explicit EventTimer(cudaStream_t stream);
    ~EventTimer();
    EventTimer(const EventTimer&) = delete;
    EventTimer& operator=(const EventTimer&) = delete;

    // Records the start event after the work queued so far.
    void start();
    // Records the stop event, waits for it and returns the milliseconds since start().
    double stop_ms();

private:
    cudaStream_t stream_;
    cudaEvent_t start_ = nullptr;
    cudaEvent_t stop_ = nullptr;
};

// Device-to-device copy bandwidth on `stream` in bytes per second (bytes read + written): a copy
// of a quarter of the free memory, at most 1 GiB each way, best of four after a first one that
// pays for first touches. The reference the benchmarks hold kernels' bandwidth against.
double device_copy_bandwidth(cudaStream_t stream);

} // namespace pyramid::cuda
