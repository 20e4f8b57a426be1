// The CPU emulation of the device stops a kernel that real hardware would hang on or leave
// undefined, instead of letting it pass by chance (kernels/emulation/block_scheduler.h). Each
// case launches one small kernel; CTest checks the fault message for the faulty ones and
// "finished" for the sound one, so the program can neither always fault nor never fault.
//   emulation_faults sound | split-barrier | exited-lane | mixed-warp-calls | overlapped | unwaited-overlap |
//                    stray-prefetch
// (the last three launch to overlap the grid before: the sound kernel after a prefetch of its
// output and wait_for_prior_grids() runs, without the wait stops at its barrier, and with a
// prefetch past its output's allocation stops at the prefetch).
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>

#include "kernel_launch.cuh"

namespace {

using pyramid::cuda::launch_kernel;

__global__ void sound_kernel(int* out)
{
    __shared__ int value;
    if (threadIdx.x == 0)
        value = 7;
    __syncthreads();
    out[threadIdx.x] = __shfl_sync(0xffffffffu, value + int(threadIdx.x), 0);
}

// The sound kernel as a kernel launched to overlap its predecessor must begin (a prefetch may
// come first: grid_dependency.cuh).
__global__ void waiting_kernel(int* out)
{
    pyramid::cuda::prefetch_to_l2(out, 64 * sizeof(int));
    pyramid::cuda::wait_for_prior_grids();
    __shared__ int value;
    if (threadIdx.x == 0)
        value = 7;
    __syncthreads();
    out[threadIdx.x] = __shfl_sync(0xffffffffu, value + int(threadIdx.x), 0);
}

// A prefetch that runs past the end of its allocation (64 ints).
__global__ void stray_prefetch_kernel(int* out)
{
    pyramid::cuda::prefetch_to_l2(out, 4096 * sizeof(int));
    pyramid::cuda::wait_for_prior_grids();
    out[threadIdx.x] = 1;
}

// Even and odd threads at two different barriers.
__global__ void split_barrier_kernel(int* out)
{
    if (threadIdx.x % 2 == 0) {
        out[threadIdx.x] = 1;
        __syncthreads();
    } else {
        out[threadIdx.x] = 2;
        __syncthreads();
    }
}

// Lane 31 leaves before the full-mask shuffle the others wait in.
__global__ void exited_lane_kernel(int* out)
{
    if (threadIdx.x == 31)
        return;
    out[threadIdx.x] = __shfl_sync(0xffffffffu, int(threadIdx.x), 0);
}

// Half the warp in a shuffle, the other half in a ballot, with the same mask.
__global__ void mixed_warp_calls_kernel(int* out)
{
    if (threadIdx.x < 16)
        out[threadIdx.x] = __shfl_sync(0xffffffffu, 1, 0);
    else
        out[threadIdx.x] = int(__ballot_sync(0xffffffffu, 1));
}

} // namespace

int main(int argc, char** argv)
{
    const char* which = argc > 1 ? argv[1] : "";
    void (*kernel)(int*) = std::strcmp(which, "sound") == 0              ? sound_kernel
                           : std::strcmp(which, "split-barrier") == 0    ? split_barrier_kernel
                           : std::strcmp(which, "exited-lane") == 0      ? exited_lane_kernel
                           : std::strcmp(which, "mixed-warp-calls") == 0 ? mixed_warp_calls_kernel
                           : std::strcmp(which, "overlapped") == 0       ? waiting_kernel
                           : std::strcmp(which, "unwaited-overlap") == 0 ? sound_kernel
                           : std::strcmp(which, "stray-prefetch") == 0   ? stray_prefetch_kernel
                                                                         : nullptr;
    if (!kernel) {
        std::fprintf(stderr,
                     "usage: %s sound|split-barrier|exited-lane|mixed-warp-calls|overlapped|unwaited-overlap|"
                     "stray-prefetch\n",
                     argv[0]);
        return 2;
    }
    const bool overlap = std::strcmp(which, "overlapped") == 0 || std::strcmp(which, "unwaited-overlap") == 0 ||
                         std::strcmp(which, "stray-prefetch") == 0;
    // A fault prints its message and aborts; exit instead, so CTest judges the message.
    std::signal(SIGABRT, [](int) { _exit(3); });
    int* out = nullptr;
    if (cudaMalloc(&out, 64 * sizeof(int)) != cudaSuccess)
        return 2;
    launch_kernel(kernel, dim3(2), dim3(64), 0, pyramid::cuda::KernelStream(nullptr, overlap), out);
    int host[64] = {};
    const bool copied = cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost) == cudaSuccess;
    cudaFree(out);
    if (!copied || ((kernel == sound_kernel || kernel == waiting_kernel) && host[5] != 7)) {
        std::fprintf(stderr, "the sound kernel computed the wrong value\n");
        return 1;
    }
    std::printf("finished\n");
    return 0;
}
