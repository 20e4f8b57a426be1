#include "model/finite_values.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace pyramid {
namespace {

// Exponent all ones: infinity or NaN, in each format.
bool f32_bits_non_finite(uint32_t bits) { return (bits & 0x7F800000u) == 0x7F800000u; }
bool f16_bits_non_finite(uint16_t bits) { return (bits & 0x7C00u) == 0x7C00u; }
bool bf16_bits_non_finite(uint16_t bits) { return (bits & 0x7F80u) == 0x7F80u; }

template <typename Bits>
Bits load(const std::byte* p)
{
    Bits b;
    std::memcpy(&b, p, sizeof b);
    return b;
}

// Whether unit i (an element or a block) of the tensor is bad.
bool unit_non_finite(const TensorTypeTraits& traits, const std::byte* data, int64_t i)
{
    switch (traits.type) {
    case TensorType::F32: return f32_bits_non_finite(load<uint32_t>(data + 4 * i));
    case TensorType::F16: return f16_bits_non_finite(load<uint16_t>(data + 2 * i));
    case TensorType::BF16: return bf16_bits_non_finite(load<uint16_t>(data + 2 * i));
    default: {
        const std::byte* block = data + static_cast<size_t>(i) * traits.block_bytes;
        for (const int16_t offset : traits.scale_offsets)
            if (offset >= 0 && f16_bits_non_finite(load<uint16_t>(block + offset)))
                return true;
        return false;
    }
    }
}

}  // namespace

std::optional<int64_t> first_non_finite(TensorType type, const std::byte* data, int64_t elements)
{
    const TensorTypeTraits& traits = tensor_type_traits(type);
    const int64_t units = elements / traits.block_elems;
    constexpr int64_t kChunk = int64_t{1} << 16;
    int64_t first = std::numeric_limits<int64_t>::max();
#pragma omp parallel for schedule(static) reduction(min : first)
    for (int64_t chunk = 0; chunk < (units + kChunk - 1) / kChunk; ++chunk) {
        const int64_t end = std::min(units, (chunk + 1) * kChunk);
        for (int64_t i = chunk * kChunk; i < end; ++i)
            if (unit_non_finite(traits, data, i)) {
                first = std::min(first, i);
                break;
            }
    }
    if (first == std::numeric_limits<int64_t>::max())
        return std::nullopt;
    return first;
}

} // namespace pyramid
