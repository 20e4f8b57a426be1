#pragma once
// The emulated device's mma.sync.m16n8k16 (fp16 inputs, float32 accumulation) behind
// warp_mma.cuh: the warp's fragments are gathered through the block scheduler, as the tensor
// core gathers them from the lanes' registers, and each lane gets its part of D. The layout is
// warp_mma.cuh's (the PTX ISA's); products of two fp16 values are exact in float32 and are
// added in k order.
#include <cstdint>

namespace pyramid::cuda::emulation {

// d[0..3] += this lane's part of A B, from every lane's a[0..3] and b[0..1]. All 32 lanes call it.
void mma_16x8x16(float d[4], const uint32_t a[4], const uint32_t b[2]);

} // namespace pyramid::cuda::emulation
