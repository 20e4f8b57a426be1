#pragma once
// The state behind the emulated CUDA runtime and cuBLAS (cuda_runtime_api.cpp, cublas_api.cpp):
// device memory, page-locked host memory, the work queued on streams, the sticky launch error.
//
// It is stricter than a GPU where that finds bugs a GPU would hide or show only by chance:
// - queued work runs only when the host synchronizes (a stream, an event, the device, or a
//   call documented as synchronizing), so reading a result before waiting for it fails;
// - device memory is inaccessible to the host outside emulated device work, so a host
//   dereference of a device pointer crashes at once;
// - new device memory (up to 1 GiB an allocation) and shared memory are filled with 0xff
//   bytes (NaN as float or half), so reads of unwritten elements show; a write past the end of an allocation, within its
//   256-byte rounding, is reported when the device next synchronizes, and past that hits an
//   inaccessible page;
// - device memory is capped (PYRAMID_CUDA_EMULATION_MEMORY_MIB, default 16384, fractions allowed), so running out
//   of it can be tested;
// - while a stream captures a graph, every call that would wait for the device, free memory,
//   copy pageable memory on that stream or record an event fails and invalidates the capture
//   (a GPU tolerates some of these in cudaStreamCaptureModeRelaxed; allocations alone are allowed there).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace pyramid::cuda::emulation {

class EmulatedDevice {
public:
    // The process's one emulated device, as the CUDA runtime's state is per process.
    static EmulatedDevice& instance();

    cudaError_t allocate(void** data, size_t bytes);
    cudaError_t free(void* data);
    cudaError_t allocate_host(void** data, size_t bytes);
    cudaError_t free_host(void* data);
    size_t capacity() const;
    size_t used() const { return used_; }

    // Whether [data, data + bytes) lies inside one device allocation / page-locked allocation.
    bool is_device(const void* data, size_t bytes) const;
    bool is_pinned(const void* data, size_t bytes) const;

    cudaStream_t create_stream();
    bool is_stream(cudaStream_t stream) const;
    void destroy_stream(cudaStream_t stream);

    // Queues work in stream order (all streams share one order: stricter than a GPU, never looser).
    // On a capturing stream the work becomes the next node of its graph instead; `kind` names
    // what the node is (a kernel's address, a tag for copies) for cudaGraphExecUpdate.
    void enqueue(cudaStream_t stream, std::function<void()> work, const void* kind = nullptr);

    // Stream capture (graph_api.cpp).
    struct GraphNode {
        const void* kind = nullptr;
        std::function<void()> work;
    };
    cudaError_t begin_capture(cudaStream_t stream, cudaStreamCaptureMode mode);
    // Hands over the nodes recorded since begin_capture; cudaErrorStreamCaptureInvalidated when
    // a forbidden call broke the capture.
    cudaError_t end_capture(cudaStream_t stream, std::vector<GraphNode>& nodes);
    cudaStreamCaptureStatus capture_status(cudaStream_t stream) const;
    // For a call that a capture in progress forbids: cudaErrorStreamCaptureUnsupported, the
    // capture invalidated; cudaSuccess when no capture is in progress, or when the call is one
    // relaxed captures allow (`allocation`) and this one is relaxed.
    cudaError_t forbid_during_capture(bool allocation = false);
    // Runs everything queued, then checks the allocations' tails.
    void synchronize();
    // Runs `work` now with device memory accessible (for the synchronous copies).
    void run_now(const std::function<void()>& work);

    // The error cudaGetLastError reports (and clears): the last one any call returned.
    void set_error(cudaError_t error);
    cudaError_t take_error();
    cudaError_t peek_error() const { return error_; }

    // Grids queued so far (enqueue_grid), by how they were launched: in plain stream order, or
    // to overlap the grid before them (KernelStream::overlap_prior).
    struct GridLaunches {
        long long plain = 0;
        long long overlapped = 0;
    };
    void count_grid(bool overlapped) { ++(overlapped ? grid_launches_.overlapped : grid_launches_.plain); }
    GridLaunches grid_launches() const { return grid_launches_; }

    // What kernels asked L2 to prefetch (grid_dependency.cuh's prefetch_to_l2) since the last
    // forget_prefetches(): the bytes of every piece asked for, and the union of the pieces as
    // disjoint ranges (begin -> end, adjacent ones merged).
    struct Prefetches {
        size_t bytes = 0;
        std::map<uintptr_t, uintptr_t> ranges;
    };
    void note_prefetch(const void* data, size_t bytes);
    const Prefetches& prefetches() const { return prefetches_; }
    void forget_prefetches() { prefetches_ = {}; }

    void set_max_dynamic_shared(const void* kernel, int bytes) { max_shared_[kernel] = bytes; }
    size_t max_dynamic_shared(const void* kernel) const;

private:
    struct Allocation {
        size_t bytes;      // as asked
        size_t rounded;    // to 256 bytes, the tail poisoned
        void* mapping;     // whole mapping, guard page last
        size_t mapped;
    };
    void protect(bool accessible);
    void check_tails() const;

    std::map<const unsigned char*, Allocation> device_;
    std::map<const unsigned char*, size_t> pinned_;
    std::set<cudaStream_t> streams_;
    std::map<const void*, int> max_shared_;
    std::vector<std::function<void()>> queue_;
    struct Capture {
        cudaStream_t stream = nullptr;
        cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
        bool invalidated = false;
        std::vector<GraphNode> nodes;
    };
    std::vector<Capture> captures_;  // in progress
    Capture* capture_on(cudaStream_t stream);
    size_t used_ = 0;
    GridLaunches grid_launches_;
    Prefetches prefetches_;
    cudaError_t error_ = cudaSuccess;
    bool accessible_ = false;
};

} // namespace pyramid::cuda::emulation
