#pragma once
// Device decoders of ggml's quantized block types, eight elements at a time.
//
// Block<T>::quants8(block, j0, q, a, m) reads elements j0..j0+7 (j0 a multiple of 8) of one
// block: their quants as eight bytes, elements j0..j0+3 in q[0] and the next four in q[1],
// lowest byte first, with element = a * (quant - kOffset) + m. The quants are small enough to
// be signed bytes (at most 63, or Q8_0's own int8, kSigned); m is written only by the types
// with kHasMin, and is 0 for the others. The int8 matvec (quant_matvec_int8.cu) dots the bytes
// directly; decode8<Block<T>> (below) turns them into float32, bit for bit what
// core/model/tensor_type.cpp (and so ggml's scalar reference) produces. That needs the same
// float32 operations in the same order and no fused multiply-add, so every product and sum is
// an explicit round-to-nearest intrinsic (__fmul_rn, __fadd_rn, __fsub_rn), which nvcc never
// contracts into an FMA.
//
// Eight consecutive elements always share one scale (groups are 16 or 32 elements, aligned),
// so the scale is computed once per call. Each Block<T> takes its size and field offsets from
// model/quant_block_layout.h; where a block lies on the device, from Block<T>::locate (the
// file's order, except the groups of Q4_0, Q8_0 and Q6_K: backend/device_weight_layout.h).
// Blocks are 18, 22, 34, 110, ... bytes long, so fields are only 2-byte aligned: they are read
// 16 bits at a time.
#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "backend/device_weight_layout.h"
#include "model/quant_block_layout.h"
#include "model/tensor_type.h"
#include "util/error.h"

namespace pyramid::cuda::quant {

namespace layout = ::pyramid::block_layout;

template <int... Offsets>
inline constexpr bool kAllEven = ((Offsets % 2 == 0) && ...);

// Every block size and every multi-byte field offset of these types is even, so where the
// blocks start at an even address (check_block_alignment; the backend's weights start at
// 256-byte boundaries) those fields are read 16 bits at a time: half the load instructions
// of byte reads, which the types with few bits per weight would otherwise be bound by.
static_assert(kAllEven<layout::Q4_0::kBytes, layout::Q4_0::kQs, layout::Q4_1::kBytes, layout::Q4_1::kM,
                       layout::Q4_1::kQs, layout::Q5_0::kBytes, layout::Q5_0::kQh, layout::Q5_0::kQs,
                       layout::Q5_1::kBytes, layout::Q5_1::kM, layout::Q5_1::kQh, layout::Q5_1::kQs,
                       layout::Q8_0::kBytes, layout::Q8_0::kQs, layout::Q2_K::kBytes, layout::Q2_K::kQs,
                       layout::Q2_K::kD, layout::Q2_K::kDmin, layout::Q3_K::kBytes, layout::Q3_K::kQs,
                       layout::Q3_K::kScales, layout::Q3_K::kD, layout::Q4_K::kBytes, layout::Q4_K::kDmin,
                       layout::Q4_K::kScales, layout::Q4_K::kQs, layout::Q5_K::kBytes, layout::Q5_K::kDmin,
                       layout::Q5_K::kScales, layout::Q5_K::kQh, layout::Q5_K::kQs, layout::Q6_K::kBytes,
                       layout::Q6_K::kQh, layout::Q6_K::kScales, layout::Q6_K::kD>);

inline void check_block_alignment(const void* blocks, const char* what)
{
    if (reinterpret_cast<uintptr_t>(blocks) % 2 != 0)
        throw Error(std::string(what) + ": quantized blocks must start at an even address");
}

__device__ __forceinline__ uint32_t u16_at(const uint8_t* p) { return *reinterpret_cast<const uint16_t*>(p); }

// The fp16 value in the low 16 bits of `bits`.
__device__ __forceinline__ float half_from_bits(uint32_t bits)
{
    return __half2float(__ushort_as_half(static_cast<unsigned short>(bits)));
}

__device__ __forceinline__ float half_at(const uint8_t* p) { return half_from_bits(u16_at(p)); }

__device__ __forceinline__ uint32_t u32_at(const uint8_t* p) { return u16_at(p) | (u16_at(p + 2) << 16); }

// float(v - offset) for 0 <= v < 2^23 and 0 <= offset <= 256, exactly, without an integer
// conversion: v or'ed into the mantissa of 2^23 is the float 2^23 + v, and subtracting
// 2^23 + offset leaves v - offset. Conversions run at a quarter of the float rate on sm_80 and
// sm_90, and decoding needs one per weight; this is two full-rate operations.
__device__ __forceinline__ float small_float(uint32_t v, int offset = 0)
{
    return __fsub_rn(__uint_as_float(0x4b000000u | v), 8388608.0f + float(offset));
}

// Elements j0..j0+7 (j0 a multiple of 8) of a 32-element block's nibbles, as bytes.
__device__ __forceinline__ void nibbles8(const uint8_t* qs, int j0, uint32_t (&q)[2])
{
    const uint8_t* p = qs + (j0 & 15);
    const int shift = j0 < 16 ? 0 : 4;
    q[0] = (u32_at(p) >> shift) & 0x0f0f0f0fu;
    q[1] = (u32_at(p + 4) >> shift) & 0x0f0f0f0fu;
}

// Bits 0..3 of v as bit 4 of bytes 0..3 (the products v * 2^(7k) never overlap, so no carry
// mixes them).
__device__ __forceinline__ uint32_t fifth_bits4(uint32_t v) { return ((v * 0x00204081u) & 0x01010101u) << 4; }

// Q5_0/Q5_1: elements j0..j0+7 of the nibbles at qs, bit j of the 32-bit word at qh the fifth
// bit of element j.
__device__ __forceinline__ void five_bits8(const uint8_t* qh, const uint8_t* qs, int j0, uint32_t (&q)[2])
{
    const uint32_t high = u32_at(qh) >> j0;
    nibbles8(qs, j0, q);
    q[0] |= fifth_bits4(high & 0x0fu);
    q[1] |= fifth_bits4((high >> 4) & 0x0fu);
}

template <TensorType T>
struct Block;

// Each Block<T> derives from its layout, so kElems, kBytes and the field offsets are the
// layout's own. Block<T>::locate(base, g) is where block g of a matrix at `base` lies (blocks
// counted through the matrix, row after row): a Ref, which quants8 and decode8 read. For the
// types kept in the file's order (InFileOrder) a Ref is the block's address, blocks kBytes
// apart; for those kept in groups (InGroups) it is the block's body and its d.
template <typename Layout>
struct InFileOrder : Layout {
    using Ref = const uint8_t*;
    __device__ static Ref locate(const uint8_t* base, int64_t g) { return base + g * Layout::kBytes; }
};

// The types the device keeps in groups of eight blocks (backend/device_weight_layout.h): a Ref
// is the block's body (its bytes but d) and, apart, its d.
struct GroupedRef {
    const uint8_t* body;
    const uint8_t* d;
};

template <typename Layout>
struct InGroups : Layout {
    using Ref = GroupedRef;
    static constexpr int kBodyBytes = kDeviceBodyBytes<Layout>;
    __device__ static Ref locate(const uint8_t* base, int64_t g)
    {
        const uint8_t* group = base + (g / kDeviceGroupBlocks) * (kDeviceGroupBlocks * Layout::kBytes);
        const int i = int(g % kDeviceGroupBlocks);
        return {group + i * kBodyBytes, group + kDeviceGroupBlocks * kBodyBytes + layout::kHalf * i};
    }
    // The field at `offset` of the file's block (not d), in the body.
    __device__ static const uint8_t* field(const Ref& b, int offset)
    {
        return b.body + offset - kDeviceBodyStart<Layout>;
    }
};

template <>
struct Block<TensorType::Q4_0> : InGroups<layout::Q4_0> {
    static constexpr int kOffset = 8;
    static constexpr bool kHasMin = false;
    static constexpr bool kSigned = false;
    __device__ static void quants8(const Ref& b, int j0, uint32_t (&q)[2], float& a, float&)
    {
        a = half_at(b.d);
        nibbles8(field(b, kQs), j0, q);
    }
};

template <>
struct Block<TensorType::Q4_1> : InFileOrder<layout::Q4_1> {
    static constexpr int kOffset = 0;
    static constexpr bool kHasMin = true;
    static constexpr bool kSigned = false;
    __device__ static void quants8(const uint8_t* b, int j0, uint32_t (&q)[2], float& a, float& m)
    {
        a = half_at(b + kD);
        m = half_at(b + kM);
        nibbles8(b + kQs, j0, q);
    }
};

template <>
struct Block<TensorType::Q5_0> : InFileOrder<layout::Q5_0> {
    static constexpr int kOffset = 16;
    static constexpr bool kHasMin = false;
    static constexpr bool kSigned = false;
    __device__ static void quants8(const uint8_t* b, int j0, uint32_t (&q)[2], float& a, float&)
    {
        a = half_at(b + kD);
        five_bits8(b + kQh, b + kQs, j0, q);
    }
};

template <>
struct Block<TensorType::Q5_1> : InFileOrder<layout::Q5_1> {
    static constexpr int kOffset = 0;
    static constexpr bool kHasMin = true;
    static constexpr bool kSigned = false;
    __device__ static void quants8(const uint8_t* b, int j0, uint32_t (&q)[2], float& a, float& m)
    {
        a = half_at(b + kD);
        m = half_at(b + kM);
        five_bits8(b + kQh, b + kQs, j0, q);
    }
};

template <>
struct Block<TensorType::Q8_0> : InGroups<layout::Q8_0> {
    static constexpr int kOffset = 0;
    static constexpr bool kHasMin = false;
    static constexpr bool kSigned = true;  // the quants are int8 themselves
    __device__ static void quants8(const Ref& b, int j0, uint32_t (&q)[2], float& a, float&)
    {
        a = half_at(b.d);
        q[0] = u32_at(field(b, kQs) + j0);
        q[1] = u32_at(field(b, kQs) + 4 + j0);
    }
};

// Q2_K and Q3_K share the element order: element j = 128 h + 32 s + 16 g + l reads bits
// 2s..2s+1 of byte 32 h + 16 g + l of the quant area, with scale number j / 16.
__device__ __forceinline__ int k23_byte(int j) { return 32 * (j >> 7) + 16 * ((j >> 4) & 1) + (j & 15); }
__device__ __forceinline__ int k23_shift(int j) { return 2 * ((j >> 5) & 3); }

template <>
struct Block<TensorType::Q2_K> : InFileOrder<layout::Q2_K> {
    static constexpr int kOffset = 0;
    static constexpr bool kHasMin = true;
    static constexpr bool kSigned = false;
    __device__ static void quants8(const uint8_t* b, int j0, uint32_t (&q)[2], float& a, float& m)
    {
        const uint8_t sc = b[kScales + (j0 >> 4)];
        a = __fmul_rn(half_at(b + kD), small_float(sc & 0x0fu));
        m = -__fmul_rn(half_at(b + kDmin), small_float(sc >> 4));
        const int shift = k23_shift(j0);
        const uint8_t* p = b + kQs + k23_byte(j0);
        q[0] = (u32_at(p) >> shift) & 0x03030303u;
        q[1] = (u32_at(p + 4) >> shift) & 0x03030303u;
    }
};

template <>
struct Block<TensorType::Q3_K> : InFileOrder<layout::Q3_K> {
    // d times the 6-bit scale of element j0's group of 16: low 4 bits in bytes 0..7 of the
    // packed area (scales 8..15 in the high nibbles), top 2 bits in bytes 8..11.
    __device__ static float scale(const uint8_t* b, int j0)
    {
        const uint8_t* packed = b + kScales;
        const int s = j0 >> 4;
        const uint32_t low = s < 8 ? (packed[s] & 0x0fu) : (packed[s - 8] >> 4);
        const uint32_t high = (packed[8 + (s & 3)] >> (2 * (s >> 2))) & 3u;
        return __fmul_rn(half_at(b + kD), small_float(low | (high << 4), 32));
    }

    static constexpr int kOffset = 4;
    static constexpr bool kHasMin = false;
    static constexpr bool kSigned = false;
    __device__ static void quants8(const uint8_t* b, int j0, uint32_t (&q)[2], float& a, float&)
    {
        a = scale(b, j0);
        const int shift = k23_shift(j0);
        const int plane = 4 * (j0 >> 7) + ((j0 >> 5) & 3);  // the plane's bit of hmask
        const int offset = k23_byte(j0);
        const uint8_t* p = b + kQs + offset;
        const uint8_t* hmask = b + kHmask + (offset & 31);
        for (int k = 0; k < 2; ++k)
            q[k] = ((u32_at(p + 4 * k) >> shift) & 0x03030303u) |
                   (((u32_at(hmask + 4 * k) >> plane) & 0x01010101u) << 2);
    }
};

// Of a Q4_K/Q5_K block b (their d, dmin and scales lie alike), the factors of element j0's
// group of 32 (element = d1 * q - m1): d and dmin times that group's scale and min, 6 bits
// each, packed in the scales field.
static_assert(layout::Q4_K::kD == layout::Q5_K::kD && layout::Q4_K::kDmin == layout::Q5_K::kDmin &&
              layout::Q4_K::kScales == layout::Q5_K::kScales);
__device__ __forceinline__ void k45_group_factors(const uint8_t* b, int j0, float& d1, float& m1)
{
    const int j = j0 >> 5;
    const uint8_t* q = b + layout::Q4_K::kScales;
    uint32_t sc, m;
    if (j < 4) {
        sc = q[j] & 63u;
        m = q[j + 4] & 63u;
    } else {
        sc = (q[j + 4] & 0x0fu) | ((q[j - 4] >> 6) << 4);
        m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
    d1 = __fmul_rn(half_at(b + layout::Q4_K::kD), small_float(sc));
    m1 = __fmul_rn(half_at(b + layout::Q4_K::kDmin), small_float(m));
}

// Q4_K/Q5_K: element j = 64 c + 32 u + l is nibble u (low, high) of quant byte 32 c + l, with
// scale and min number j / 32; Q5_K's fifth bit is bit 2c + u of qh[l].
template <bool kFifthBit>
struct K45Block : InFileOrder<std::conditional_t<kFifthBit, layout::Q5_K, layout::Q4_K>> {
    using Layout = std::conditional_t<kFifthBit, layout::Q5_K, layout::Q4_K>;
    static constexpr int kOffset = 0;
    static constexpr bool kHasMin = true;
    static constexpr bool kSigned = false;

    __device__ static void quants8(const uint8_t* b, int j0, uint32_t (&q)[2], float& a, float& m)
    {
        k45_group_factors(b, j0, a, m);
        m = -m;
        const int shift = 4 * ((j0 >> 5) & 1);
        const uint8_t* qh = b + layout::Q5_K::kQh + (j0 & 31);  // read only for Q5_K
        const uint8_t* ql = b + Layout::kQs + 32 * (j0 >> 6) + (j0 & 31);
        for (int k = 0; k < 2; ++k) {
            q[k] = (u32_at(ql + 4 * k) >> shift) & 0x0f0f0f0fu;
            if (kFifthBit)
                q[k] |= ((u32_at(qh + 4 * k) >> (j0 >> 5)) & 0x01010101u) << 4;  // + 16 for the fifth bit
        }
    }
};

template <>
struct Block<TensorType::Q4_K> : K45Block<false> {};
template <>
struct Block<TensorType::Q5_K> : K45Block<true> {};

// Q6_K: element j = 128 h + 32 k + l takes nibble k / 2 of ql byte 64 h + 32 (k % 2) + l and
// bits 2k..2k+1 of qh byte 32 h + l, with scale number 8 h + 2 k + l / 16. On the device its
// blocks lie in groups of eight (InGroups): the body is ql, qh and scales at the file's offsets.
template <>
struct Block<TensorType::Q6_K> : InGroups<layout::Q6_K> {
    // d times the int8 scale of element j0's group of 16.
    __device__ static float scale(const Ref& b, int j0)
    {
        const int h = j0 >> 7, k = (j0 >> 5) & 3, l0 = j0 & 31;
        const uint32_t biased = field(b, kScales)[8 * h + 2 * k + (l0 >> 4)] ^ 0x80u;  // int8 + 128
        return __fmul_rn(half_at(b.d), small_float(biased, 128));
    }

    static constexpr int kOffset = 32;
    static constexpr bool kHasMin = false;
    static constexpr bool kSigned = false;
    __device__ static void quants8(const Ref& b, int j0, uint32_t (&q)[2], float& a, float&)
    {
        const int h = j0 >> 7, k = (j0 >> 5) & 3, l0 = j0 & 31;
        a = scale(b, j0);
        const uint8_t* ql = field(b, kQl) + 64 * h + 32 * (k & 1) + l0;
        const uint8_t* qh = field(b, kQh) + 32 * h + l0;
        const int ql_shift = 4 * (k >> 1), qh_shift = 2 * k;
        for (int i = 0; i < 2; ++i)
            q[i] = ((u32_at(ql + 4 * i) >> ql_shift) & 0x0f0f0f0fu) |
                   (((u32_at(qh + 4 * i) >> qh_shift) & 0x03030303u) << 4);
    }
};

// Elements j0..j0+7 (j0 a multiple of 8) of block b as float32, bit for bit to_float: each
// quant less its offset made exact by small_float, times a, then plus m where the type has
// one: ggml's operations in ggml's order.
template <typename B>
__device__ __forceinline__ void decode8(const typename B::Ref& b, int j0, float* out)
{
    uint32_t q[2];
    float a, m = 0.0f;
    B::quants8(b, j0, q, a, m);
    for (int i = 0; i < 8; ++i) {
        const uint32_t v = (q[i / 4] >> (8 * (i % 4))) & 0xffu;
        const float x = B::kSigned ? small_float(v ^ 0x80u, 128) : small_float(v, B::kOffset);  // int8: + 128
        out[i] = B::kHasMin ? __fadd_rn(__fmul_rn(a, x), m) : __fmul_rn(a, x);
    }
}

// Calls f(Block<T>{}) for the quantized type t; returns false for any other type.
template <typename F>
bool dispatch_block(TensorType t, F&& f)
{
    switch (t) {
    case TensorType::Q4_0: f(Block<TensorType::Q4_0>{}); return true;
    case TensorType::Q4_1: f(Block<TensorType::Q4_1>{}); return true;
    case TensorType::Q5_0: f(Block<TensorType::Q5_0>{}); return true;
    case TensorType::Q5_1: f(Block<TensorType::Q5_1>{}); return true;
    case TensorType::Q8_0: f(Block<TensorType::Q8_0>{}); return true;
    case TensorType::Q2_K: f(Block<TensorType::Q2_K>{}); return true;
    case TensorType::Q3_K: f(Block<TensorType::Q3_K>{}); return true;
    case TensorType::Q4_K: f(Block<TensorType::Q4_K>{}); return true;
    case TensorType::Q5_K: f(Block<TensorType::Q5_K>{}); return true;
    case TensorType::Q6_K: f(Block<TensorType::Q6_K>{}); return true;
    default: return false;
    }
}

// The kernels' Block<T> and the layout's definition agree on which types are grouped.
template <TensorType T>
inline constexpr bool kInGroups = std::is_same_v<typename Block<T>::Ref, GroupedRef>;
static_assert(kInGroups<TensorType::Q4_0> == device_groups_blocks(TensorType::Q4_0) &&
                  kInGroups<TensorType::Q4_1> == device_groups_blocks(TensorType::Q4_1) &&
                  kInGroups<TensorType::Q5_0> == device_groups_blocks(TensorType::Q5_0) &&
                  kInGroups<TensorType::Q5_1> == device_groups_blocks(TensorType::Q5_1) &&
                  kInGroups<TensorType::Q8_0> == device_groups_blocks(TensorType::Q8_0) &&
                  kInGroups<TensorType::Q2_K> == device_groups_blocks(TensorType::Q2_K) &&
                  kInGroups<TensorType::Q3_K> == device_groups_blocks(TensorType::Q3_K) &&
                  kInGroups<TensorType::Q4_K> == device_groups_blocks(TensorType::Q4_K) &&
                  kInGroups<TensorType::Q5_K> == device_groups_blocks(TensorType::Q5_K) &&
                  kInGroups<TensorType::Q6_K> == device_groups_blocks(TensorType::Q6_K),
              "Block<T> reads the types device_weight_layout.h groups as groups, and only those");

} // namespace pyramid::cuda::quant
