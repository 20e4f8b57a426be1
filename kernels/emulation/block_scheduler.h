#pragma once
// Runs a CUDA grid on the CPU for the emulated device: blocks one after another, the threads
// of a block as fibers (Boost.Context) on one host thread, switching only at barriers and
// warp-synchronous calls. Scheduling is deterministic (threads in index order in even blocks,
// reversed in odd ones, so an order that a missing barrier relies on fails somewhere), and
// whatever real hardware would hang on or leave undefined (threads of a block waiting at
// different barriers, a warp-synchronous call whose mask names a lane that exited or does not
// exist, lanes of one mask in different calls) stops the program with a message naming the
// block and thread, instead of passing by chance.
#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <source_location>
#include <string>

namespace pyramid::cuda::emulation {

// The built-in variables of the running emulated thread, and its lane in its warp.
struct ThreadIndex {
    uint3 thread_idx;
    uint3 block_idx;
    dim3 block_dim;
    dim3 grid_dim;
    unsigned lane;
};

// Emulated device work runs on one host thread at a time (the scheduler sets this before
// resuming a thread; kernels read it on every threadIdx, so it is a plain inline variable).
inline const ThreadIndex* running_thread = nullptr;

inline const ThreadIndex& current_thread() { return *running_thread; }
inline unsigned current_lane() { return running_thread->lane; }

// The running block's dynamic shared memory (the launch's shared bytes, poisoned with 0xff
// at the start of each block so reads of unwritten words show up as NaN).
void* dynamic_shared_memory();

// __syncthreads() at `site`: every thread of the block must reach the same one.
void sync_block(const std::source_location& site);

// The warp-synchronous primitive behind __shfl*_sync, __ballot_sync, __match_any_sync and
// __syncwarp: publishes the caller's `bytes` (at most kExchangeBytes) and waits until every
// lane of `mask` has called it with the same mask and operation. Returns the 32 lanes'
// published values, kExchangeBytes apart (lanes outside the mask hold 0xff bytes); valid
// until the calling thread's next warp-synchronous call.
inline constexpr size_t kExchangeBytes = 16;
const unsigned char* exchange_in_warp(const char* operation, unsigned mask, const void* value, size_t bytes);

// Runs thread_body once per thread of every block of the grid; `kernel` names it in faults. A
// grid launched to overlap the one before it (`overlapped`) must call wait_for_prior_grids() in
// every thread before any barrier or warp-synchronous call and before it ends, or it stops
// the program (grid_dependency.cuh).
void run_grid(const void* kernel, dim3 grid, dim3 block, size_t shared_bytes, bool overlapped,
              const std::function<void()>& thread_body);

// grid_dependency.cuh's wait_for_prior_grids() on the emulated device: grids run in stream
// order one after another, so there is nothing to wait for; it notes that the thread waited.
void wait_for_prior_grids();

// grid_dependency.cuh's prefetch_to_l2() on the emulated device, for one line's piece [data,
// data + bytes): nothing to fetch, but the piece must lie in one device allocation (a span
// computed wrong stops the program, as it would be wrong on a GPU even where a hint forgives
// it), and the device notes it (EmulatedDevice::prefetches).
void prefetch_to_l2(const void* data, size_t bytes);

// Stops the program: the emulated kernel did something real hardware would not survive.
[[noreturn]] void kernel_fault(const std::string& what);

} // namespace pyramid::cuda::emulation
