#pragma once
// The byte layouts of ggml's quantized block types, as GGUF files store them: for each type
// the elements of a block, its size in bytes and the offset of every field inside it. This
// is the one place they are spelled out; the scalar decoders (model/tensor_type.cpp), the
// AVX2 kernels (backend/) and the CUDA kernels (kernels/) all read them from here.
//
// Plain constexpr integers and no other header, so that nvcc-compiled device code (C++17),
// the emulated device build and the AVX2 files can all include it. Each type's static_assert
// lists its fields in storage order with their sizes: they must follow one another from byte
// 0 without a gap and end at the block's size, so a wrong offset does not compile.
//
// Field names are ggml's: d the fp16 scale, m (Q4_1, Q5_1) or dmin (K-quants) the fp16
// scale of the minimums, scales the packed per-group scales, hmask/qh the high bits, qs/ql
// the low bits of the quants.

namespace pyramid::block_layout {

inline constexpr int QK = 32;     // elements per block of the simple quantized types
inline constexpr int QK_K = 256;  // elements per K-quant super-block
inline constexpr int kHalf = 2;   // bytes of an fp16 field
inline constexpr int kPackedScales = 16 * 6 / 8;  // bytes of sixteen 6-bit values (Q3_K..Q5_K's scales)

struct Field {
    int offset, bytes;
};

// Whether `fields`, in storage order, start at byte 0, leave no gap and end at `block_bytes`.
template <int N>
constexpr bool fields_tile(int block_bytes, const Field (&fields)[N])
{
    int end = 0;
    for (const Field& f : fields) {
        if (f.offset != end)
            return false;
        end += f.bytes;
    }
    return end == block_bytes;
}

// Q4_0: f16 d | u8 qs[16]                     low nibbles: elements 0..15, high: 16..31
struct Q4_0 {
    static constexpr int kElems = QK, kBytes = 18;
    static constexpr int kD = 0, kQs = 2;
};
static_assert(fields_tile(Q4_0::kBytes, {{Q4_0::kD, kHalf}, {Q4_0::kQs, QK / 2}}));

// Q4_1: f16 d | f16 m | u8 qs[16]
struct Q4_1 {
    static constexpr int kElems = QK, kBytes = 20;
    static constexpr int kD = 0, kM = 2, kQs = 4;
};
static_assert(fields_tile(Q4_1::kBytes, {{Q4_1::kD, kHalf}, {Q4_1::kM, kHalf}, {Q4_1::kQs, QK / 2}}));

// Q5_0: f16 d | u8 qh[4] | u8 qs[16]          bit j of qh (a 32-bit word) is element j's fifth bit
struct Q5_0 {
    static constexpr int kElems = QK, kBytes = 22;
    static constexpr int kD = 0, kQh = 2, kQs = 6;
};
static_assert(fields_tile(Q5_0::kBytes, {{Q5_0::kD, kHalf}, {Q5_0::kQh, QK / 8}, {Q5_0::kQs, QK / 2}}));

// Q5_1: f16 d | f16 m | u8 qh[4] | u8 qs[16]
struct Q5_1 {
    static constexpr int kElems = QK, kBytes = 24;
    static constexpr int kD = 0, kM = 2, kQh = 4, kQs = 8;
};
static_assert(fields_tile(Q5_1::kBytes,
                          {{Q5_1::kD, kHalf}, {Q5_1::kM, kHalf}, {Q5_1::kQh, QK / 8}, {Q5_1::kQs, QK / 2}}));

// Q8_0: f16 d | i8 qs[32]
struct Q8_0 {
    static constexpr int kElems = QK, kBytes = 34;
    static constexpr int kD = 0, kQs = 2;
};
static_assert(fields_tile(Q8_0::kBytes, {{Q8_0::kD, kHalf}, {Q8_0::kQs, QK}}));

// Q2_K: u8 scales[16] | u8 qs[64] | f16 d | f16 dmin
//   scales: a 4-bit scale (low nibble) and min (high nibble) per group of 16; qs: 2 bits each
struct Q2_K {
    static constexpr int kElems = QK_K, kBytes = 84;
    static constexpr int kScales = 0, kQs = 16, kD = 80, kDmin = 82;
};
static_assert(fields_tile(Q2_K::kBytes, {{Q2_K::kScales, QK_K / 16}, {Q2_K::kQs, QK_K / 4}, {Q2_K::kD, kHalf},
                                         {Q2_K::kDmin, kHalf}}));

// Q3_K: u8 hmask[32] | u8 qs[64] | u8 scales[12] | f16 d
//   hmask: each element's third bit; scales: 16 signed 6-bit scales, packed
struct Q3_K {
    static constexpr int kElems = QK_K, kBytes = 110;
    static constexpr int kHmask = 0, kQs = 32, kScales = 96, kD = 108;
};
static_assert(fields_tile(Q3_K::kBytes, {{Q3_K::kHmask, QK_K / 8}, {Q3_K::kQs, QK_K / 4},
                                         {Q3_K::kScales, kPackedScales}, {Q3_K::kD, kHalf}}));

// Q4_K: f16 d | f16 dmin | u8 scales[12] | u8 qs[128]
//   scales: eight 6-bit scales and eight 6-bit mins (one each per group of 32), packed
struct Q4_K {
    static constexpr int kElems = QK_K, kBytes = 144;
    static constexpr int kD = 0, kDmin = 2, kScales = 4, kQs = 16;
};
static_assert(fields_tile(Q4_K::kBytes, {{Q4_K::kD, kHalf}, {Q4_K::kDmin, kHalf}, {Q4_K::kScales, kPackedScales},
                                         {Q4_K::kQs, QK_K / 2}}));

// Q5_K: f16 d | f16 dmin | u8 scales[12] | u8 qh[32] | u8 qs[128]   (scales as Q4_K's)
struct Q5_K {
    static constexpr int kElems = QK_K, kBytes = 176;
    static constexpr int kD = 0, kDmin = 2, kScales = 4, kQh = 16, kQs = 48;
};
static_assert(fields_tile(Q5_K::kBytes, {{Q5_K::kD, kHalf}, {Q5_K::kDmin, kHalf}, {Q5_K::kScales, kPackedScales},
                                         {Q5_K::kQh, QK_K / 8}, {Q5_K::kQs, QK_K / 2}}));

// Q6_K: u8 ql[128] | u8 qh[64] | i8 scales[16] | f16 d
//   ql: low 4 bits, qh: high 2 bits of each element; one int8 scale per group of 16
struct Q6_K {
    static constexpr int kElems = QK_K, kBytes = 210;
    static constexpr int kQl = 0, kQh = 128, kScales = 192, kD = 208;
};
static_assert(fields_tile(Q6_K::kBytes, {{Q6_K::kQl, QK_K / 2}, {Q6_K::kQh, QK_K / 4}, {Q6_K::kScales, QK_K / 16},
                                         {Q6_K::kD, kHalf}}));

} // namespace pyramid::block_layout
