// Block layouts and decoders of every weight type ggml writes into GGUF files.
//
// Bit-exactness with ggml's scalar reference depends on doing the same float32 operations in
// the same order, so each formula below keeps ggml's grouping (for example Q4_K is
// (d*sc)*q - dmin*m, not d*(sc*q) - ...). This file is compiled with -ffp-contract=off so no
// multiply-add is fused.
#include "model/tensor_type.h"

#include <array>
#include <cstring>
#include <string>
#include <type_traits>

#include "model/quant_block_fields.h"
#include "util/error.h"
#include "util/float16.h"

namespace pyramid {
namespace {

using namespace quant;
using namespace block_layout;  // the blocks' fields (Q4_0::kQs, ...)

void f32_to_float(const void* src, float* dst, int64_t n)
{
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
}

void f16_to_float(const void* src, float* dst, int64_t n) { fp16_to_fp32_row(src, dst, n); }
void bf16_to_float(const void* src, float* dst, int64_t n) { bf16_to_fp32_row(src, dst, n); }

void q4_0_to_float(const void* src, float* dst, int64_t n)
{
    const auto* b = static_cast<const uint8_t*>(src);
    for (int64_t i = 0; i < n / QK; ++i, b += Q4_0::kBytes, dst += QK) {
        const float d = half_at(b + Q4_0::kD);
        const uint8_t* qs = b + Q4_0::kQs;
        for (int j = 0; j < QK / 2; ++j) {
            const int x0 = (qs[j] & 0x0f) - 8;
            const int x1 = (qs[j] >> 4) - 8;
            dst[j] = x0 * d;
            dst[j + QK / 2] = x1 * d;
        }
    }
}

void q4_1_to_float(const void* src, float* dst, int64_t n)
{
    const auto* b = static_cast<const uint8_t*>(src);
    for (int64_t i = 0; i < n / QK; ++i, b += Q4_1::kBytes, dst += QK) {
        const float d = half_at(b + Q4_1::kD);
        const float m = half_at(b + Q4_1::kM);
        const uint8_t* qs = b + Q4_1::kQs;
        for (int j = 0; j < QK / 2; ++j) {
            const int x0 = qs[j] & 0x0f;
            const int x1 = qs[j] >> 4;
            dst[j] = x0 * d + m;
            dst[j + QK / 2] = x1 * d + m;
        }
    }
}

void q5_0_to_float(const void* src, float* dst, int64_t n)
{
    const auto* b = static_cast<const uint8_t*>(src);
    for (int64_t i = 0; i < n / QK; ++i, b += Q5_0::kBytes, dst += QK) {
        const float d = half_at(b + Q5_0::kD);
        uint32_t qh;
        std::memcpy(&qh, b + Q5_0::kQh, 4);
        const uint8_t* qs = b + Q5_0::kQs;
        for (int j = 0; j < QK / 2; ++j) {
            const int hi0 = static_cast<int>((qh >> j) << 4 & 0x10);
            const int hi1 = static_cast<int>((qh >> (j + 12)) & 0x10);
            const int x0 = ((qs[j] & 0x0f) | hi0) - 16;
            const int x1 = ((qs[j] >> 4) | hi1) - 16;
            dst[j] = x0 * d;
            dst[j + QK / 2] = x1 * d;
        }
    }
}

void q5_1_to_float(const void* src, float* dst, int64_t n)
{
    const auto* b = static_cast<const uint8_t*>(src);
    for (int64_t i = 0; i < n / QK; ++i, b += Q5_1::kBytes, dst += QK) {
        const float d = half_at(b + Q5_1::kD);
        const float m = half_at(b + Q5_1::kM);
        uint32_t qh;
        std::memcpy(&qh, b + Q5_1::kQh, 4);
        const uint8_t* qs = b + Q5_1::kQs;
        for (int j = 0; j < QK / 2; ++j) {
            const int hi0 = static_cast<int>((qh >> j) << 4 & 0x10);
            const int hi1 = static_cast<int>((qh >> (j + 12)) & 0x10);
            const int x0 = (qs[j] & 0x0f) | hi0;
            const int x1 = (qs[j] >> 4) | hi1;
            dst[j] = x0 * d + m;
            dst[j + QK / 2] = x1 * d + m;
        }
    }
}

void q8_0_to_float(const void* src, float* dst, int64_t n)
{
    const auto* b = static_cast<const uint8_t*>(src);
    for (int64_t i = 0; i < n / QK; ++i, b += Q8_0::kBytes, dst += QK) {
        const float d = half_at(b + Q8_0::kD);
        const auto* qs = reinterpret_cast<const int8_t*>(b + Q8_0::kQs);
        for (int j = 0; j < QK; ++j)
            dst[j] = qs[j] * d;
    }
}

void q2_k_to_float(const void* src, float* dst, int64_t n)
{
    const auto* b = static_cast<const uint8_t*>(src);
    for (int64_t i = 0; i < n / QK_K; ++i, b += Q2_K::kBytes) {
        const uint8_t* scales = b + Q2_K::kScales;
        const uint8_t* q = b + Q2_K::kQs;
        const float d = half_at(b + Q2_K::kD);
        const float dmin = half_at(b + Q2_K::kDmin);
        int is = 0;
        // Each 32-byte run of q holds four 2-bit planes; each plane is two groups of 16 with
        // their own 4-bit scale and 4-bit min.
        for (int half = 0; half < 2; ++half, q += 32) {
            for (int shift = 0; shift < 8; shift += 2) {
                for (int g = 0; g < 2; ++g) {
                    const uint8_t sc = scales[is++];
                    const float dl = d * (sc & 0x0f);
                    const float ml = dmin * (sc >> 4);
                    const uint8_t* qg = q + 16 * g;
                    for (int l = 0; l < 16; ++l)
                        *dst++ = dl * static_cast<int8_t>((qg[l] >> shift) & 3) - ml;
                }
            }
        }
    }
}

void q3_k_to_float(const void* src, float* dst, int64_t n)
{
    const auto* b = static_cast<const uint8_t*>(src);
    int8_t scales[16];
    for (int64_t i = 0; i < n / QK_K; ++i, b += Q3_K::kBytes) {
        const uint8_t* hmask = b + Q3_K::kHmask;
        const uint8_t* q = b + Q3_K::kQs;
        q3_k_scales(b + Q3_K::kScales, scales);
        const float d_all = half_at(b + Q3_K::kD);
        int is = 0;
        uint8_t m = 1;  // which bit of hmask holds the current plane's high bit
        for (int half = 0; half < 2; ++half, q += 32) {
            for (int shift = 0; shift < 8; shift += 2, m <<= 1) {
                for (int g = 0; g < 2; ++g) {
                    const float dl = d_all * scales[is++];
                    const uint8_t* qg = q + 16 * g;
                    const uint8_t* hg = hmask + 16 * g;
                    for (int l = 0; l < 16; ++l) {
                        const int v = static_cast<int8_t>((qg[l] >> shift) & 3) - ((hg[l] & m) ? 0 : 4);
                        *dst++ = dl * v;
                    }
                }
            }
        }
    }
}

// Q4_K and Q5_K: a group's element is (d * scale) * q - dmin * min, q of 4 bits or, for Q5_K,
// 5 with the fifth taken from qh (bits 2c and 2c + 1 for the two groups of chunk c).
template <bool kFifthBit>
void k45_to_float(const void* src, float* dst, int64_t n)
{
    using L = std::conditional_t<kFifthBit, Q5_K, Q4_K>;
    const auto* b = static_cast<const uint8_t*>(src);
    for (int64_t i = 0; i < n / QK_K; ++i, b += L::kBytes) {
        const float d = half_at(b + L::kD);
        const float dmin = half_at(b + L::kDmin);
        const uint8_t* scales = b + L::kScales;
        const uint8_t* qh = b + Q5_K::kQh;  // read only for Q5_K
        const uint8_t* ql = b + L::kQs;
        uint8_t u1 = 1, u2 = 2;  // bits of qh holding the 5th bit of the two current groups
        for (int is = 0; is < 8; is += 2, ql += 32, u1 <<= 2, u2 <<= 2) {
            uint8_t sc, m;
            k4_scale_min(is, scales, sc, m);
            const float d1 = d * sc;
            const float m1 = dmin * m;
            k4_scale_min(is + 1, scales, sc, m);
            const float d2 = d * sc;
            const float m2 = dmin * m;
            for (int l = 0; l < 32; ++l)
                *dst++ = d1 * ((ql[l] & 0x0f) + (kFifthBit && (qh[l] & u1) ? 16 : 0)) - m1;
            for (int l = 0; l < 32; ++l)
                *dst++ = d2 * ((ql[l] >> 4) + (kFifthBit && (qh[l] & u2) ? 16 : 0)) - m2;
        }
    }
}

void q6_k_to_float(const void* src, float* dst, int64_t n)
{
    const auto* b = static_cast<const uint8_t*>(src);
    float ds[16];
    for (int64_t i = 0; i < n / QK_K; ++i, b += Q6_K::kBytes) {
        const uint8_t* ql = b + Q6_K::kQl;
        const uint8_t* qh = b + Q6_K::kQh;
        const auto* sc = reinterpret_cast<const int8_t*>(b + Q6_K::kScales);
        const float d = half_at(b + Q6_K::kD);
        for (int j = 0; j < 16; ++j)  // ggml computes d * sc * q as (d * sc) * q
            ds[j] = d * sc[j];
        // Two halves of 128: each uses 64 bytes of ql, 32 of qh and 8 scales (one per 16
        // outputs). Byte l of the half yields outputs l, l+32, l+64 and l+96.
        for (int half = 0; half < 2; ++half, ql += 64, qh += 32, dst += 128) {
            const float* s = ds + 8 * half;
            for (int g = 0; g < 2; ++g) {
                const float s1 = s[g], s2 = s[g + 2], s3 = s[g + 4], s4 = s[g + 6];
                for (int l = 16 * g; l < 16 * g + 16; ++l) {
                    const int q1 = ((ql[l] & 0x0f) | ((qh[l] & 3) << 4)) - 32;
                    const int q2 = ((ql[l + 32] & 0x0f) | (((qh[l] >> 2) & 3) << 4)) - 32;
                    const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
                    const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
                    dst[l] = s1 * q1;
                    dst[l + 32] = s2 * q2;
                    dst[l + 64] = s3 * q3;
                    dst[l + 96] = s4 * q4;
                }
            }
        }
    }
}

constexpr std::array<TensorTypeTraits, 13> kTraits{{
    {TensorType::F32, "f32", 1, 4, f32_to_float},
    {TensorType::F16, "f16", 1, 2, f16_to_float},
    {TensorType::Q4_0, "q4_0", Q4_0::kElems, Q4_0::kBytes, q4_0_to_float, {Q4_0::kD, -1}},
    {TensorType::Q4_1, "q4_1", Q4_1::kElems, Q4_1::kBytes, q4_1_to_float, {Q4_1::kD, Q4_1::kM}},
    {TensorType::Q5_0, "q5_0", Q5_0::kElems, Q5_0::kBytes, q5_0_to_float, {Q5_0::kD, -1}},
    {TensorType::Q5_1, "q5_1", Q5_1::kElems, Q5_1::kBytes, q5_1_to_float, {Q5_1::kD, Q5_1::kM}},
    {TensorType::Q8_0, "q8_0", Q8_0::kElems, Q8_0::kBytes, q8_0_to_float, {Q8_0::kD, -1}},
    {TensorType::Q2_K, "q2_K", Q2_K::kElems, Q2_K::kBytes, q2_k_to_float, {Q2_K::kD, Q2_K::kDmin}},
    {TensorType::Q3_K, "q3_K", Q3_K::kElems, Q3_K::kBytes, q3_k_to_float, {Q3_K::kD, -1}},
    {TensorType::Q4_K, "q4_K", Q4_K::kElems, Q4_K::kBytes, k45_to_float<false>, {Q4_K::kD, Q4_K::kDmin}},
    {TensorType::Q5_K, "q5_K", Q5_K::kElems, Q5_K::kBytes, k45_to_float<true>, {Q5_K::kD, Q5_K::kDmin}},
    {TensorType::Q6_K, "q6_K", Q6_K::kElems, Q6_K::kBytes, q6_k_to_float, {Q6_K::kD, -1}},
    {TensorType::BF16, "bf16", 1, 2, bf16_to_float},
}};

} // namespace

std::optional<TensorTypeTraits> tensor_type_traits(uint32_t type_id)
{
    for (const auto& t : kTraits)
        if (static_cast<uint32_t>(t.type) == type_id)
            return t;
    return std::nullopt;
}

const TensorTypeTraits& tensor_type_traits(TensorType type)
{
    for (const auto& t : kTraits)
        if (t.type == type)
            return t;
    throw Error("unknown tensor type id " + std::to_string(static_cast<uint32_t>(type)));
}

bool is_block_quantized(TensorType type) { return tensor_type_traits(type).block_elems > 1; }

size_t tensor_row_bytes(TensorType type, int64_t n)
{
    const auto& t = tensor_type_traits(type);
    if (n < 0 || n % t.block_elems != 0)
        throw Error("a row of " + std::to_string(n) + " elements is not a whole number of " +
                    std::string(t.name) + " blocks (" + std::to_string(t.block_elems) + " elements each)");
    return static_cast<size_t>(n / t.block_elems) * t.block_bytes;
}

} // namespace pyramid
