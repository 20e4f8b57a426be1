#pragma once
// Fields of ggml's quantized blocks (laid out in model/quant_block_layout.h) that the scalar
// decoders (model/tensor_type.cpp) and the AVX2 ones (backend/) both read: the fp16 scales
// that blocks keep unaligned, and the packed 6-bit scales of Q3_K, Q4_K and Q5_K.
#include <cstdint>
#include <cstring>

#include "model/quant_block_layout.h"
#include "util/float16.h"

namespace pyramid::quant {

// Little-endian half read from a possibly unaligned byte pointer.
inline float half_at(const uint8_t* p)
{
    uint16_t h;
    std::memcpy(&h, p, 2);
    return fp16_to_fp32(h);
}

// Scale and min number j (0..7) of Q4_K/Q5_K: 6 bits each, packed in the 12 bytes at q.
inline void k4_scale_min(int j, const uint8_t* q, uint8_t& sc, uint8_t& m)
{
    if (j < 4) {
        sc = q[j] & 63;
        m = q[j + 4] & 63;
    } else {
        sc = static_cast<uint8_t>((q[j + 4] & 0x0f) | ((q[j - 4] >> 6) << 4));
        m = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
}

// The 16 signed scales of Q3_K from their packed bytes: low 4 bits in bytes 0..7 (scales
// 0..7 in the low nibbles, 8..15 in the high ones), top 2 bits in bytes 8..11.
inline void q3_k_scales(const uint8_t* packed, int8_t out[16])
{
    for (int j = 0; j < 16; ++j) {
        const int low = (j < 8) ? (packed[j] & 0x0f) : (packed[j - 8] >> 4);
        const int high = (packed[8 + (j & 3)] >> (2 * (j >> 2))) & 3;
        out[j] = static_cast<int8_t>((low | (high << 4)) - 32);
    }
}

} // namespace pyramid::quant
