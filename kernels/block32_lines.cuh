#pragma once
// Q4_0 and Q8_0 read a block a lane, as the int8 matvec (quant_matvec_int8.cu) walks them. On
// the device their blocks lie in groups of eight (backend/device_weight_layout.h): each block's
// body, 16 bytes of nibbles (Q4_0) or 32 of int8 quants (Q8_0), is a whole 16-byte line or two
// of a 16-byte aligned matrix, its d apart. A lane loads its block's body and d, two or three
// loads for 32 weights, where reading the file's 18- and 34-byte blocks takes three or five
// 16-bit loads for eight; a warp covers 32 blocks (1024 elements) a step.
#include <cstdint>

#include "backend/device_weight_layout.h"
#include "quant_blocks.cuh"

namespace pyramid::cuda {

template <TensorType T>
inline constexpr bool kBlock32Lines = T == TensorType::Q4_0 || T == TensorType::Q8_0;

// What a lane loads of a block: its body (Q4_0: line 0 only) and d, in the low 16 bits.
struct Block32Bytes {
    uint4 body[2];
    uint32_t d;
};

// Loads only, so that a lane can have several blocks' loads in flight before it waits on the
// first.
template <TensorType T>
__device__ __forceinline__ Block32Bytes block32_bytes(const quant::GroupedRef& block)
{
    using B = quant::Block<T>;
    static_assert(kBlock32Lines<T> && B::kBodyBytes % 16 == 0 && B::kBodyBytes <= 32 && B::kQs == B::kD + 2,
                  "Q4_0's and Q8_0's bodies are their quants, one or two 16-byte lines");
    Block32Bytes bytes;
    bytes.body[0] = *reinterpret_cast<const uint4*>(block.body);
    bytes.body[1] = B::kBodyBytes == 32 ? *reinterpret_cast<const uint4*>(block.body + 16) : uint4{0, 0, 0, 0};
    bytes.d = quant::u16_at(block.d);
    return bytes;
}

// The sum over the block's 32 elements of (quant - B::kOffset) * xq with the 32 int8
// activations at xq (16-byte aligned), exact in integers. Q4_0's byte i holds element i in its
// low nibble and element 16 + i in its high one; its offset 8 rides in the chain as bytes of -8.
template <TensorType T>
__device__ __forceinline__ int block32_dot(const Block32Bytes& w, const int8_t* xq)
{
    const int4 x0 = reinterpret_cast<const int4*>(xq)[0], x1 = reinterpret_cast<const int4*>(xq)[1];
    const uint32_t b0[4] = {w.body[0].x, w.body[0].y, w.body[0].z, w.body[0].w};
    const int xs0[4] = {x0.x, x0.y, x0.z, x0.w}, xs1[4] = {x1.x, x1.y, x1.z, x1.w};
    int sum = 0;
    if constexpr (T == TensorType::Q8_0) {
        const uint32_t b1[4] = {w.body[1].x, w.body[1].y, w.body[1].z, w.body[1].w};
#pragma unroll
        for (int i = 0; i < 4; ++i)
            sum = __dp4a(int(b1[i]), xs1[i], __dp4a(int(b0[i]), xs0[i], sum));
    } else {
        constexpr int kMinus8 = int(0xf8f8f8f8u);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            sum = __dp4a(int(b0[i] & 0x0f0f0f0fu), xs0[i], __dp4a(kMinus8, xs0[i], sum));
            sum = __dp4a(int((b0[i] >> 4) & 0x0f0f0f0fu), xs1[i], __dp4a(kMinus8, xs1[i], sum));
        }
    }
    return sum;
}

} // namespace pyramid::cuda
