#pragma once
// What a kernel launched to overlap the kernel before it (kernels/kernel_stream.h) is held to, for
// the kernel tests: the bits of the same launch in plain stream order, and, for the matvecs, a
// prefetch of exactly their weights before they wait (grid_dependency.cuh's prefetch_to_l2),
// which the emulated device notes.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "device_buffer.h"
#include "gpu_test.h"
#include "kernel_stream.h"

namespace pyramid::gpu_test {

// A matrix's bytes as its matvec reads them on the device.
struct WeightBytes {
    const void* data = nullptr;
    size_t bytes = 0;
};

// A matvec's output: its first `count` floats.
struct MatvecOutput {
    const cuda::DeviceBuffer* buffer = nullptr;
    size_t count = 0;
};

// Runs `launch` on a stream of its own in plain stream order, then launched to overlap, each
// time after `outputs` were filled with NaN on that stream (so a value the second run leaves
// unwritten shows). What the two runs wrote must be the same bits. On the emulated device the
// plain launch must prefetch nothing and the overlapped one exactly `weights`: the union of the
// pieces it asked L2 for is one range per matrix, and no byte was asked for twice. A device that
// cannot overlap runs the plain launch alone.
void check_overlapped_launch(const std::string& what, const std::vector<WeightBytes>& weights,
                             const std::vector<MatvecOutput>& outputs,
                             const std::function<void(cuda::KernelStream)>& launch);

} // namespace pyramid::gpu_test
