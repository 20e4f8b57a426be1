#include "synthetic_ops.h"

#include <cuda_bf16.h>

#include <algorithm>
#include <string>
#include <type_traits>

#include "cuda_check.h"
#include "element_type.cuh"
#include "kernel_launch.cuh"
#include "model/synthetic_value.h"
#include "util/error.h"

namespace pyramid::cuda {
namespace {

constexpr int kThreads = 256;

// What the host generator keeps of a value when it stores it as `source`.
enum class Source { F32, F16, BF16 };

template <Source S>
__device__ __forceinline__ float stored(float x)
{
    if constexpr (S == Source::F16)
        return __half2float(__float2half_rn(x));
    else if constexpr (S == Source::BF16)
        return __bfloat162float(__float2bfloat16_rn(x));
    else
        return x;
}

template <typename T, Source S>
__global__ void fill_kernel(T* out, int64_t count, uint64_t key, float scale)
{
    wait_for_prior_grids();
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x)
        out[i] = from_float<T>(stored<S>(synthetic::value(key, uint64_t(i), scale)));
}

template <typename T>
void launch(T* out, int64_t count, TensorType source_type, uint64_t key, float scale, KernelStream stream)
{
    // Grid-stride: enough blocks to fill any current GPU, never more than needed.
    const int blocks = static_cast<int>(std::min<int64_t>((count + kThreads - 1) / kThreads, 65536));
    switch (source_type) {
    case TensorType::F32:
        launch_kernel(fill_kernel<T, Source::F32>, blocks, kThreads, 0, stream, out, count, key, scale);
        break;
    case TensorType::F16:
        launch_kernel(fill_kernel<T, Source::F16>, blocks, kThreads, 0, stream, out, count, key, scale);
        break;
    case TensorType::BF16:
        launch_kernel(fill_kernel<T, Source::BF16>, blocks, kThreads, 0, stream, out, count, key, scale);
        break;
    default:
        throw Error("generated weights are F32, F16 or BF16, not " + std::string(tensor_type_traits(source_type).name));
    }
    check_launch("fill_synthetic");
}

} // namespace

void fill_synthetic(void* out, Precision out_type, int64_t count, TensorType source_type, uint64_t key, float scale,
                    KernelStream stream)
{
    if (count <= 0)
        return;
    dispatch(out_type, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        launch(static_cast<T*>(out), count, source_type, key, scale, stream);
    });
}

} // namespace pyramid::cuda
