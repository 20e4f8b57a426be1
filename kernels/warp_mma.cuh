#pragma once
// One warp-wide tensor-core product, D += A B with A 16 x 16 and B 16 x 8 in fp16 and C, D
// 16 x 8 in float32: PTX's mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 (sm_80 and later,
// every architecture this backend is built for). Each lane holds its part of each matrix in
// the layout the PTX ISA defines ("Matrix Fragments for mma.m16n8k16 with floating point
// type"), with g = lane / 4 and c = lane % 4:
//   A: r[0] = A[g][2c, 2c+1], r[1] = A[g+8][2c, 2c+1], r[2] = A[g][2c+8, 2c+9], r[3] = A[g+8][2c+8, 2c+9]
//   B: r[0] = B[2c, 2c+1][g], r[1] = B[2c+8, 2c+9][g]   (two fp16 a register, low half first:
//      pack_half2 of element_type.cuh)
//   C: v[0], v[1] = C[g][2c, 2c+1], v[2], v[3] = C[g+8][2c, 2c+1]
// The CPU emulation computes the same product from the same layout (emulation/warp_mma.h), so
// a kernel that fills the fragments against this layout fails its tests there as it would on a
// GPU, and the same tests on a GPU check that the layout is the hardware's.
#include <cuda_fp16.h>

#include <cstdint>

#include "element_type.cuh"

#if !defined(__CUDACC__)
#include "emulation/warp_mma.h"
#endif

namespace pyramid::cuda {

struct MmaA {
    uint32_t r[4];
};
struct MmaB {
    uint32_t r[2];
};
struct MmaC {
    float v[4];
};

// d += a b, every lane of the warp calling it together.
__device__ __forceinline__ void mma_16x8x16(MmaC& d, const MmaA& a, const MmaB& b)
{
#if defined(__CUDA_ARCH__)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+f"(d.v[0]), "+f"(d.v[1]), "+f"(d.v[2]), "+f"(d.v[3])
                 : "r"(a.r[0]), "r"(a.r[1]), "r"(a.r[2]), "r"(a.r[3]), "r"(b.r[0]), "r"(b.r[1]));
#elif !defined(__CUDACC__)
    emulation::mma_16x8x16(d.v, a.r, b.r);
#endif
}

} // namespace pyramid::cuda
