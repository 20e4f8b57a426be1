#pragma once
// The device side of int8_rows.h: one warp rounds one block of 32 values, lane j holding value
// j, with the CPU's operations one by one (largest magnitude, scale = amax / 127,
// inverse = 1 / scale, q = round_even(x * inverse)). Kernels that produce activations call it
// to write the int8 form beside their own output.
#include <cuda_runtime.h>

#include <cstdint>

#include "element_type.cuh"

namespace pyramid::cuda {

// The whole warp must call it, each lane with its value v; q: the lane's int8 value; factors:
// the block's {scale, scale * sum q}, written by lane 0.
__device__ __forceinline__ void round_block_int8(float v, int8_t* q, float2* factors)
{
    const float amax = warp_max(fabsf(v));
    const float scale = __fdiv_rn(amax, 127.0f);
    const float inverse = scale > 0.0f ? __fdiv_rn(1.0f, scale) : 0.0f;
    const int r = __float2int_rn(__fmul_rn(v, inverse));
    *q = static_cast<int8_t>(r);
    const float sum = warp_sum(float(r));  // at most 32 * 127: exact
    if (threadIdx.x % 32 == 0)
        *factors = make_float2(scale, __fmul_rn(scale, sum));
}

} // namespace pyramid::cuda
