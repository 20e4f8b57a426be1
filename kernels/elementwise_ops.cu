#include "elementwise_ops.h"

#include <algorithm>
#include <string>
#include <type_traits>

#include "cuda_check.h"
#include "element_type.cuh"
#include "int8_rounding.cuh"
#include "kernel_launch.cuh"
#include "rope_math.cuh"

namespace pyramid::cuda {
namespace {

constexpr int kThreads = 256;

int grid_for(int64_t count)
{
    // Grid-stride loops: enough blocks to fill any current GPU, never more than needed.
    return static_cast<int>(std::min<int64_t>((count + kThreads - 1) / kThreads, 65536));
}

template <typename T>
__global__ void embed_kernel(const T* table, int dim, const int32_t* tokens, int64_t count, float* out)
{
    wait_for_prior_grids();
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x) {
        const int64_t t = i / dim;
        out[i] = to_float(table[int64_t(tokens[t]) * dim + i % dim]);
    }
}

// One block per row: sum of squares by warp shuffles, then one value per warp through shared
// memory. With q (dim a multiple of 32), each warp's 32 consecutive outputs are also rounded to
// int8 as one block.
template <typename T>
__global__ void rms_norm_kernel(const float* x, const float* weight, int dim, float eps, T* out, int8_t* q,
                                float2* factors)
{
    wait_for_prior_grids();
    const float* row = x + int64_t(blockIdx.x) * dim;
    float sum = 0.0f;
    for (int i = threadIdx.x; i < dim; i += blockDim.x)
        sum += row[i] * row[i];
    __shared__ float warp_sums[kThreads / 32];
    sum = warp_sum(sum);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = sum;
    __syncthreads();
    float total = 0.0f;
    for (int w = 0; w < int(blockDim.x / 32); ++w)
        total += warp_sums[w];
    const float scale = 1.0f / sqrtf(total / float(dim) + eps);
    const int64_t first = int64_t(blockIdx.x) * dim;
    for (int i = threadIdx.x; i < dim; i += blockDim.x) {
        const T value = from_float<T>(row[i] * scale * weight[i]);
        out[first + i] = value;
        if (q)
            round_block_int8(to_float(value), q + first + i, factors + (first + i) / kInt8Block);
    }
}

// One thread per rotated pair.
// Items run over each row's heads of x, then its heads of also.
__global__ void rope_kernel(float* x, int n, int n_heads, float* also, int also_heads, int head_dim,
                            const int32_t* positions, float theta, RopePairs pairs)
{
    wait_for_prior_grids();
    const int half = head_dim / 2;
    const int row_heads = n_heads + also_heads;
    const int64_t count = int64_t(n) * row_heads * half;
    for (int64_t item = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; item < count;
         item += int64_t(gridDim.x) * blockDim.x) {
        const int i = int(item % half);
        const int64_t row = item / half / row_heads;
        const int h = int(item / half % row_heads);
        float* head = h < n_heads ? x + (row * n_heads + h) * head_dim
                                  : also + (row * also_heads + h - n_heads) * head_dim;
        float* pair = head + i * pairs.pair_step;
        rope_rotate(pair[0], pair[pairs.stride_in_pair], positions[row], i, head_dim, theta);
    }
}

// With q (count a multiple of 32), as rms_norm_kernel: a warp's 32 consecutive i are one block.
template <typename T>
__global__ void swiglu_kernel(const float* gate, const float* up, int64_t count, T* out, int8_t* q, float2* factors)
{
    wait_for_prior_grids();
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x) {
        const float g = gate[i];
        const T value = from_float<T>(g / (1.0f + expf(-g)) * up[i]);
        out[i] = value;
        if (q)
            round_block_int8(to_float(value), q + i, factors + i / kInt8Block);
    }
}

__global__ void gather_rows_kernel(const float* src, int width, const int32_t* rows, int64_t count, float* dst)
{
    wait_for_prior_grids();
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x)
        dst[i] = src[int64_t(rows[i / width]) * width + i % width];
}

} // namespace

void embed_rows(const void* table, Precision table_type, int dim, const int32_t* tokens, int n, float* out,
                KernelStream stream)
{
    const int64_t count = int64_t(n) * dim;
    if (count == 0)
        return;
    dispatch(table_type, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        launch_kernel(embed_kernel<T>, grid_for(count), kThreads, 0, stream,
                      static_cast<const T*>(table), dim, tokens, count, out);
    });
    check_launch("embed_rows");
}

void rms_norm(const float* x, const float* weight, int n, int dim, float eps, void* out, Precision out_type,
              KernelStream stream, const Int8Rows& also_int8)
{
    if (n == 0)
        return;
    if (also_int8 && also_int8.cols != dim)
        throw Error("rms_norm: int8 rows of " + std::to_string(also_int8.cols) + " values for rows of " +
                    std::to_string(dim));
    dispatch(out_type, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        launch_kernel(rms_norm_kernel<T>, n, kThreads, 0, stream, x, weight, dim, eps, static_cast<T*>(out),
                      also_int8.q, also_int8.factors);
    });
    check_launch("rms_norm");
}

void rope(float* x, int n, int n_heads, int head_dim, const int32_t* positions, float theta, RopeLayout layout,
          KernelStream stream, float* also, int also_heads)
{
    if (!also)
        also_heads = 0;
    const int64_t count = int64_t(n) * (n_heads + also_heads) * (head_dim / 2);
    if (count == 0)
        return;
    launch_kernel(rope_kernel, grid_for(count), kThreads, 0, stream, x, n, n_heads, also, also_heads, head_dim,
                  positions, theta, rope_pairs(layout, head_dim));
    check_launch("rope");
}

void swiglu(const float* gate, const float* up, int64_t count, void* out, Precision out_type, KernelStream stream,
            const Int8Rows& also_int8)
{
    if (count == 0)
        return;
    if (also_int8 && count % also_int8.cols != 0)
        throw Error("swiglu: " + std::to_string(count) + " values are not whole rows of " +
                    std::to_string(also_int8.cols));
    dispatch(out_type, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        launch_kernel(swiglu_kernel<T>, grid_for(count), kThreads, 0, stream, gate, up, count, static_cast<T*>(out),
                      also_int8.q, also_int8.factors);
    });
    check_launch("swiglu");
}

void gather_rows(const float* src, int width, const int32_t* rows, int n, float* dst, KernelStream stream)
{
    const int64_t count = int64_t(n) * width;
    if (count == 0)
        return;
    launch_kernel(gather_rows_kernel, grid_for(count), kThreads, 0, stream, src, width, rows, count, dst);
    check_launch("gather_rows");
}

} // namespace pyramid::cuda
