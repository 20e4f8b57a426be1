#pragma once
// Fields of ggml's quantized blocks that the scalar decoders (model/tensor_type.cpp) and the
// AVX2 ones (backend/) both read: block sizes, the fp16 scales that blocks keep unaligned, and
// the packed 6-bit scales and minimums of Q4_K and Q5_K.
#include <cstdint>
#include <cstring>

#include "util/float16.h"

namespace pyramid::quant {

constexpr int QK = 32;     // elements per block of the simple quantized types
constexpr int QK_K = 256;  // elements per K-quant super-block

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

} // namespace pyramid::quant
