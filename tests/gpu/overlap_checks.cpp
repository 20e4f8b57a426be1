#include "overlap_checks.h"

#include <cstdint>
#include <map>
#include <memory>

#include "cuda_check.h"
#include "projection_reference.h"

#if PYRAMID_EMULATED_DEVICE
#include "emulation/emulated_device.h"
#endif

namespace pyramid::gpu_test {

void check_overlapped_launch(const std::string& what, const std::vector<WeightBytes>& weights,
                             const std::vector<MatvecOutput>& outputs,
                             const std::function<void(cuda::KernelStream)>& launch)
{
    // A stream of the test's own, as the backend's: the legacy stream is no place for launches
    // that overlap.
    cudaStream_t stream = nullptr;
    cuda::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    const std::unique_ptr<CUstream_st, decltype(&cudaStreamDestroy)> owned(stream, cudaStreamDestroy);
    // Every output, filled with NaN first, then written by one run; side by side.
    const auto run = [&](cuda::KernelStream s) {
        for (const MatvecOutput& o : outputs)
            cudaMemsetAsync(o.buffer->data(), 0xff, o.buffer->bytes(), s.stream);
        launch(s);
        std::vector<float> all;
        for (const MatvecOutput& o : outputs) {
            const std::vector<float> y = download(o.buffer->data(), o.count);
            all.insert(all.end(), y.begin(), y.end());
        }
        return all;
    };
#if PYRAMID_EMULATED_DEVICE
    auto& device = cuda::emulation::EmulatedDevice::instance();
    device.forget_prefetches();
#endif
    const std::vector<float> plain = run(cuda::KernelStream(stream));
#if PYRAMID_EMULATED_DEVICE
    GPU_CHECK(device.prefetches().bytes == 0, what + ": a plain launch prefetches nothing");
#endif
    if (!device_overlaps())
        return;
    check_bits(what + ", launched to overlap", run(cuda::KernelStream(stream, true)), plain);
#if PYRAMID_EMULATED_DEVICE
    const auto& asked = device.prefetches();
    std::map<uintptr_t, uintptr_t> expected;
    size_t expected_bytes = 0;
    for (const WeightBytes& w : weights) {
        const auto begin = reinterpret_cast<uintptr_t>(w.data);
        expected.emplace(begin, begin + w.bytes);
        expected_bytes += w.bytes;
    }
    GPU_CHECK(asked.ranges == expected, what + ": prefetched " + std::to_string(asked.ranges.size()) +
                                            " ranges, not exactly the " + std::to_string(weights.size()) +
                                            " matrices' bytes");
    GPU_CHECK(asked.bytes == expected_bytes, what + ": prefetched " + std::to_string(asked.bytes) + " bytes for " +
                                                 std::to_string(expected_bytes) + " of weights");
    device.forget_prefetches();
#endif
}

} // namespace pyramid::gpu_test
