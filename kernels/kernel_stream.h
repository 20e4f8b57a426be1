#pragma once
// Where a kernel is queued, and whether it may start before the kernel ahead of it in that
// stream has finished.
//
// Between two kernels of one stream a GPU idles: the second grid is launched only when the
// first has ended and its writes are flushed, and its blocks then still have to be placed on
// the SMs. A decode step at batch 1 is some 400 short kernels, so these gaps are a real part of
// it. With programmatic dependent launch (compute capability 9.0 and later) a kernel launched
// with `overlap_prior` is launched as soon as every block of the kernel ahead has started, and
// its blocks wait on the device (grid_dependency.cuh) until that kernel has ended and its writes
// are visible: stream order is kept, the launch latency is hidden.
//
// Correct only because every kernel of this library begins with wait_for_prior_grids()
// (grid_dependency.cuh; the CPU emulation stops a kernel launched with overlap_prior that does
// not wait); before it, launched so, the matvecs only ask L2 for their weights. Kernels from
// elsewhere (cuBLAS) are always launched in plain stream order, and a kernel after them waits
// for them as after any kernel. Elsewhere than on sm_90+ the flag changes nothing; the backend
// sets it only there (CudaBackendOptions::overlap_launches).
#include <cuda_runtime.h>

namespace pyramid::cuda {

struct KernelStream {
    // Implicit: a plain stream queues in plain stream order (tests, one-off launches).
    KernelStream(cudaStream_t stream, bool overlap_prior = false) : stream(stream), overlap_prior(overlap_prior) {}

    cudaStream_t stream;
    bool overlap_prior;
};

} // namespace pyramid::cuda
