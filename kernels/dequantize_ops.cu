#include "dequantize_ops.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "block32_lines.cuh"
#include "cuda_check.h"
#include "element_type.cuh"
#include "k4_segments.cuh"
#include "kernel_launch.cuh"
#include "q6k_lines.cuh"
#include "quant_blocks.cuh"

namespace pyramid::cuda {
namespace {

constexpr int kThreads = 256;

// Eight decoded values to dst (16-byte aligned) in whole 16-byte stores, so a warp writes 512
// (fp16) or 1024 (float32) contiguous bytes per instruction instead of 2 or 4 bytes a lane
// spread over all of them.
__device__ __forceinline__ void store8(const float* v, __half* dst)
{
    *reinterpret_cast<uint4*>(dst) =
        make_uint4(pack_half2(__float2half_rn(v[0]), __float2half_rn(v[1])),
                   pack_half2(__float2half_rn(v[2]), __float2half_rn(v[3])),
                   pack_half2(__float2half_rn(v[4]), __float2half_rn(v[5])),
                   pack_half2(__float2half_rn(v[6]), __float2half_rn(v[7])));
}
__device__ __forceinline__ void store8(const float* v, float* dst)
{
    reinterpret_cast<float4*>(dst)[0] = make_float4(v[0], v[1], v[2], v[3]);
    reinterpret_cast<float4*>(dst)[1] = make_float4(v[4], v[5], v[6], v[7]);
}

// One thread per eight elements: row `ids ? ids[t] : first_row + t`, elements 8g..8g+7.
// `count` (rows * cols / 8) fits an int (launch checks it): 32-bit index arithmetic, which is a
// few instructions where a 64-bit division is dozens.
template <typename B, typename Out>
__global__ void dequantize_kernel(const uint8_t* blocks, int cols, int64_t first_row, const int32_t* ids, int count,
                                  Out* out)
{
    wait_for_prior_grids();
    const int groups_per_row = cols / 8;
    const int blocks_per_row = cols / B::kElems;
    for (int item = blockIdx.x * blockDim.x + threadIdx.x; item < count; item += gridDim.x * blockDim.x) {
        const int t = item / groups_per_row;
        const int c0 = (item - t * groups_per_row) * 8;
        const int64_t row = ids ? int64_t(ids[t]) : first_row + t;
        float values[8];
        quant::decode8<B>(B::locate(blocks, row * blocks_per_row + c0 / B::kElems), c0 % B::kElems, values);
        store8(values, out + int64_t(t) * cols + c0);
    }
}

// Sixteen decoded values (one run of a K-quant block) to dst in four or two 16-byte stores.
template <typename Out>
__device__ __forceinline__ void store16(const float* v, Out* dst)
{
    store8(v, dst);
    store8(v + 8, dst + 8);
}

// The unit of a thread in the line kernels below: row t of the launch (its matrix row), block b
// of that row and the unit's number within the block.
struct LineUnit {
    int t, b, unit;
    int64_t row;
};

__device__ __forceinline__ LineUnit line_unit(int item, int blocks_per_row, int units_per_block, int64_t first_row,
                                              const int32_t* ids)
{
    const int units_per_row = blocks_per_row * units_per_block;
    LineUnit u;
    u.t = item / units_per_row;
    const int in_row = item - u.t * units_per_row;
    u.b = in_row / units_per_block;
    u.unit = in_row - u.b * units_per_block;
    u.row = ids ? int64_t(ids[u.t]) : first_row + u.t;
    return u;
}

// Q4_K and Q5_K a 16-byte segment a thread (k4_segments.cuh), as the int8 matvec reads them:
// 32 elements, 16 of each of two groups, where decode8 takes ten 16-bit and byte loads for
// eight. Element = d1 * q - m1, d1 and m1 rounded first: decode8's float operations, so
// to_float's bits.
template <bool kFifthBit, typename Out>
__global__ void dequantize_k4_kernel(const uint8_t* blocks, int cols, int64_t first_row, const int32_t* ids, int count,
                                     Out* out)
{
    wait_for_prior_grids();
    const int blocks_per_row = cols / 256;
    for (int item = blockIdx.x * blockDim.x + threadIdx.x; item < count; item += gridDim.x * blockDim.x) {
        const LineUnit u = line_unit(item, blocks_per_row, kK4Segments, first_row, ids);
        using B = quant::K45Block<kFifthBit>;
        const uint8_t* block = B::locate(blocks, u.row * blocks_per_row + u.b);
        const K4Segment s = k4_segment(k4_segment_bytes<kFifthBit>(block, u.unit), u.unit);
        Out* dst = out + int64_t(u.t) * cols + 256 * u.b + k4_segment_first_element(u.unit);
#pragma unroll
        for (int g = 0; g < 2; ++g) {
            const uint32_t(&q)[4] = g == 0 ? s.low : s.high;
            const float d1 = __fmul_rn(s.d, quant::small_float(s.groups.scale[g]));
            const float m1 = __fmul_rn(s.dmin, quant::small_float(s.groups.min[g]));
            float v[16];
#pragma unroll
            for (int i = 0; i < 16; ++i)
                v[i] = __fsub_rn(__fmul_rn(d1, quant::small_float((q[i / 4] >> (8 * (i % 4))) & 0xffu)), m1);
            store16(v, dst + 32 * g);
        }
    }
}

// Run k of a Q6_K lane (q6k_lines.cuh) as 16 floats at dst: d * scale * (q - 32), decode8's
// operations.
template <int k, typename Out>
__device__ __forceinline__ void store_q6k_run(const Q6KLineBytes& bytes, int lane_in_block, Out* dst)
{
    uint32_t q[4];
    q6k_run<k>(bytes, q);
    const float a = q6k_run_scale<k>(bytes, lane_in_block);
    float v[16];
#pragma unroll
    for (int i = 0; i < 16; ++i)
        v[i] = __fmul_rn(a, quant::small_float((q[i / 4] >> (8 * (i % 4))) & 0xffu, 32));
    store16(v, dst + 32 * k);
}

// Q6_K four lanes a block in 16-byte lines (q6k_lines.cuh): 64 elements a thread.
template <typename Out>
__global__ void dequantize_q6k_kernel(const uint8_t* blocks, int cols, int64_t first_row, const int32_t* ids,
                                      int count, Out* out)
{
    wait_for_prior_grids();
    using B = quant::Block<TensorType::Q6_K>;
    const int blocks_per_row = cols / 256;
    for (int item = blockIdx.x * blockDim.x + threadIdx.x; item < count; item += gridDim.x * blockDim.x) {
        const LineUnit u = line_unit(item, blocks_per_row, kQ6KLanes, first_row, ids);
        const Q6KLineBytes bytes = q6k_line_bytes(B::locate(blocks, u.row * blocks_per_row + u.b), u.unit);
        Out* dst = out + int64_t(u.t) * cols + 256 * u.b + q6k_lane_first_element(u.unit);
        store_q6k_run<0>(bytes, u.unit, dst);
        store_q6k_run<1>(bytes, u.unit, dst);
        store_q6k_run<2>(bytes, u.unit, dst);
        store_q6k_run<3>(bytes, u.unit, dst);
    }
}

// Q4_0 and Q8_0 a block a thread (block32_lines.cuh): 32 elements, d * (quant - offset),
// decode8's operations.
template <TensorType T, typename Out>
__global__ void dequantize_block32_kernel(const uint8_t* blocks, int cols, int64_t first_row, const int32_t* ids,
                                          int count, Out* out)
{
    wait_for_prior_grids();
    using B = quant::Block<T>;
    const int blocks_per_row = cols / B::kElems;
    for (int item = blockIdx.x * blockDim.x + threadIdx.x; item < count; item += gridDim.x * blockDim.x) {
        const LineUnit u = line_unit(item, blocks_per_row, 1, first_row, ids);
        const Block32Bytes bytes = block32_bytes<T>(B::locate(blocks, u.row * blocks_per_row + u.b));
        const float d = quant::half_from_bits(bytes.d);
        const uint32_t words[8] = {bytes.body[0].x, bytes.body[0].y, bytes.body[0].z, bytes.body[0].w,
                                   bytes.body[1].x, bytes.body[1].y, bytes.body[1].z, bytes.body[1].w};
        float v[32];
#pragma unroll
        for (int i = 0; i < 32; ++i) {
            if constexpr (T == TensorType::Q8_0) {  // int8 quants: the byte + 128, less 128
                v[i] = __fmul_rn(d, quant::small_float(((words[i / 4] >> (8 * (i % 4))) & 0xffu) ^ 0x80u, 128));
            } else {  // Q4_0: byte i % 16's low nibble for i < 16, its high one after
                const uint32_t byte = (words[(i % 16) / 4] >> (8 * (i % 4))) & 0xffu;
                v[i] = __fmul_rn(d, quant::small_float(i < 16 ? byte & 0x0fu : byte >> 4, 8));
            }
        }
        Out* dst = out + int64_t(u.t) * cols + B::kElems * u.b;
        store16(v, dst);
        store16(v + 16, dst + 16);
    }
}

// Q4_0, Q8_0, Q4_K, Q5_K and Q6_K through the line kernels above where their blocks are 16-byte
// aligned; false for the rest, which decode8 reads.
bool launch_lines(TensorType type, const void* blocks, int64_t cols, int64_t first_row, const int32_t* ids,
                  int64_t rows, void* out, Precision out_type, KernelStream stream)
{
    const bool k4 = type == TensorType::Q4_K || type == TensorType::Q5_K;
    const bool block32 = type == TensorType::Q4_0 || type == TensorType::Q8_0;
    if ((!k4 && !block32 && type != TensorType::Q6_K) || reinterpret_cast<uintptr_t>(blocks) % 16 != 0 ||
        cols % (block32 ? 32 : 256) != 0)
        return false;
    const int64_t count = block32 ? rows * (cols / 32) : rows * (cols / 256) * (k4 ? kK4Segments : kQ6KLanes);
    const int grid = static_cast<int>(std::min<int64_t>((count + kThreads - 1) / kThreads, 65536));
    dispatch(out_type, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        const auto kernel = type == TensorType::Q4_K   ? dequantize_k4_kernel<false, T>
                            : type == TensorType::Q5_K ? dequantize_k4_kernel<true, T>
                            : type == TensorType::Q4_0 ? dequantize_block32_kernel<TensorType::Q4_0, T>
                            : type == TensorType::Q8_0 ? dequantize_block32_kernel<TensorType::Q8_0, T>
                                                       : dequantize_q6k_kernel<T>;
        launch_kernel(kernel, grid, kThreads, 0, stream, static_cast<const uint8_t*>(blocks), static_cast<int>(cols),
                      first_row, ids, static_cast<int>(count), static_cast<T*>(out));
    });
    check_launch("dequantize (lines)");
    return true;
}

void launch(TensorType type, const void* blocks, int64_t cols, int64_t first_row, const int32_t* ids, int64_t rows,
            void* out, Precision out_type, KernelStream stream)
{
    const int64_t count = rows * (cols / 8);
    if (count == 0)
        return;
    quant::check_block_alignment(blocks, "dequantize");
    if (count > std::numeric_limits<int>::max() || cols > std::numeric_limits<int>::max())
        throw Error("dequantize: " + std::to_string(rows) + " rows of " + std::to_string(cols) +
                    " elements in one launch are more than its int indices count");
    if (reinterpret_cast<uintptr_t>(out) % 16 != 0)
        throw Error("dequantize: the output must be 16-byte aligned");
    if (launch_lines(type, blocks, cols, first_row, ids, rows, out, out_type, stream))
        return;
    const int grid = static_cast<int>(std::min<int64_t>((count + kThreads - 1) / kThreads, 65536));
    const bool known = quant::dispatch_block(type, [&](auto block) {
        using B = decltype(block);
        if (cols % B::kElems != 0)
            throw Error("dequantize: rows of " + std::to_string(cols) + " elements are not whole " +
                        std::string(tensor_type_traits(type).name) + " blocks");
        dispatch(out_type, [&](auto* tag) {
            using T = std::remove_pointer_t<decltype(tag)>;
            launch_kernel(dequantize_kernel<B, T>, grid, kThreads, 0, stream,
                          static_cast<const uint8_t*>(blocks), static_cast<int>(cols), first_row, ids,
                          static_cast<int>(count), static_cast<T*>(out));
        });
    });
    if (!known)
        throw Error("dequantize: tensor type " + std::string(tensor_type_traits(type).name) +
                    " is not a quantized block type");
    check_launch("dequantize_kernel");
}

} // namespace

bool stays_quantized(TensorType type)
{
    return quant::dispatch_block(type, [](auto) {});
}

void dequantize_rows(TensorType type, const void* blocks, int64_t cols, int64_t first_row, int64_t rows, void* out,
                     Precision out_type, KernelStream stream)
{
    launch(type, blocks, cols, first_row, nullptr, rows, out, out_type, stream);
}

void dequantize_gathered_rows(TensorType type, const void* blocks, int64_t cols, const int32_t* ids, int n,
                              float* out, KernelStream stream)
{
    launch(type, blocks, cols, 0, ids, n, out, Precision::Fp32, stream);
}

} // namespace pyramid::cuda
