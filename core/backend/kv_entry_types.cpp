#include "backend/kv_entry_types.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace pyramid {
namespace {

// The fp16 scale that maps the block's largest magnitude to max_code, and its inverse as the
// codes are rounded with: the stored scale's, so that decoding undoes it.
struct BlockScale {
    Half stored;
    float inverse;
};

BlockScale block_scale(const float* values, int max_code)
{
    float largest = 0.0f;
    for (int i = 0; i < kKvBlockValues; ++i)
        largest = std::max(largest, std::fabs(values[i]));
    const Half stored = to_half(std::min(largest / static_cast<float>(max_code), kKvLargestScale));
    const float scale = to_float(stored);
    return {stored, scale > 0.0f ? 1.0f / scale : 0.0f};
}

// Rounded to nearest; clamped, since the rounded scale may be a little smaller than exact.
int code_of(float value, float inverse, int max_code)
{
    const long code = std::lrint(value * inverse);
    return static_cast<int>(std::clamp<long>(code, -max_code, max_code));
}

void store_block(const float* values, KvQ8Block& block)
{
    const BlockScale s = block_scale(values, kKvQ8MaxCode);
    block.scale = s.stored;
    for (int i = 0; i < kKvBlockValues; ++i)
        block.q[i] = static_cast<int8_t>(code_of(values[i], s.inverse, kKvQ8MaxCode));
}

void store_block(const float* values, KvQ4Block& block)
{
    constexpr int kHalf = kKvBlockValues / 2;
    const BlockScale s = block_scale(values, kKvQ4MaxCode);
    block.scale = s.stored;
    for (int i = 0; i < kHalf; ++i)
        block.q[i] = kv_q4_byte(code_of(values[i], s.inverse, kKvQ4MaxCode),
                                code_of(values[i + kHalf], s.inverse, kKvQ4MaxCode));
}

} // namespace

template <typename Stored>
void store_values(const float* values, int64_t n, Stored* out)
{
    static_assert(sizeof(Half) == sizeof(uint16_t));  // a row of Half is a row of its bits
    if constexpr (std::is_same_v<Stored, float>)
        std::copy_n(values, n, out);
    else if constexpr (std::is_same_v<Stored, Half>)
        fp32_to_fp16_row(values, reinterpret_cast<uint16_t*>(out), n);
    else
        for (int64_t b = 0; b < n / kKvBlockValues; ++b)
            store_block(values + b * kKvBlockValues, out[b]);
}

template <typename Stored>
void load_values(const Stored* stored, int64_t n, float* out)
{
    if constexpr (kValuesPerElement<Stored> == 1) {
        for (int64_t i = 0; i < n; ++i)
            out[i] = value_at(stored, i);
    } else {
        // Block by block: the scale converted once, and loops over a block's codes the compiler
        // vectorizes (value by value through value_at, a prompt over a q8 cache spent a tenth
        // of its time here). The same product of scale and code as value_at.
        constexpr int kHalf = kKvBlockValues / 2;
        for (int64_t b = 0; b < n / kKvBlockValues; ++b) {
            const Stored& block = stored[b];
            const float scale = to_float(block.scale);
            float* o = out + b * kKvBlockValues;
            if constexpr (std::is_same_v<Stored, KvQ8Block>) {
                for (int i = 0; i < kKvBlockValues; ++i)
                    o[i] = scale * static_cast<float>(block.q[i]);
            } else {
                for (int i = 0; i < kHalf; ++i) {  // kv_q4_code's nibbles: value i low, i + 16 high
                    o[i] = scale * static_cast<float>((block.q[i] & 0x0F) - 8);
                    o[i + kHalf] = scale * static_cast<float>((block.q[i] >> 4) - 8);
                }
            }
        }
    }
}

template void store_values(const float*, int64_t, float*);
template void store_values(const float*, int64_t, Half*);
template void store_values(const float*, int64_t, KvQ8Block*);
template void store_values(const float*, int64_t, KvQ4Block*);
template void load_values(const Half*, int64_t, float*);
template void load_values(const KvQ8Block*, int64_t, float*);
template void load_values(const KvQ4Block*, int64_t, float*);

} // namespace pyramid
