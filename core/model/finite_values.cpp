#include "model/finite_values.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace pyramid {
namespace {

// Exponent all ones: infinity or NaN, in each format.
constexpr uint32_t kF32Exponent = 0x7F800000u;
constexpr uint16_t kF16Exponent = 0x7C00u;
constexpr uint16_t kBF16Exponent = 0x7F80u;

template <typename Bits>
Bits load(const std::byte* p)
{
    Bits b;
    std::memcpy(&b, p, sizeof b);
    return b;
}

// The first of values [begin, end) whose exponent bits are all ones, else end. A run of values
// is tested with a branch-free OR the compiler vectorizes, and searched only where one is bad: a
// test and branch per value ran at a tenth of the speed the bytes come in at.
template <typename Bits>
int64_t first_with_exponent(const std::byte* data, Bits exponent, int64_t begin, int64_t end)
{
    constexpr int64_t kRun = 512;
    for (int64_t run = begin; run < end; run += kRun) {
        const int64_t run_end = std::min(end, run + kRun);
        unsigned bad = 0;  // a count, not a bool: GCC vectorizes the sum, not the OR of bools
        for (int64_t i = run; i < run_end; ++i)
            bad += (load<Bits>(data + i * sizeof(Bits)) & exponent) == exponent;
        if (bad > 0)
            for (int64_t i = run; i < run_end; ++i)
                if ((load<Bits>(data + i * sizeof(Bits)) & exponent) == exponent)
                    return i;
    }
    return end;
}

// The first unit (element or block) in [begin, end) that is bad, else end.
int64_t first_bad_unit(const TensorTypeTraits& traits, const std::byte* data, int64_t begin, int64_t end)
{
    switch (traits.type) {
    case TensorType::F32: return first_with_exponent<uint32_t>(data, kF32Exponent, begin, end);
    case TensorType::F16: return first_with_exponent<uint16_t>(data, kF16Exponent, begin, end);
    case TensorType::BF16: return first_with_exponent<uint16_t>(data, kBF16Exponent, begin, end);
    default:
        for (int64_t i = begin; i < end; ++i) {
            const std::byte* block = data + static_cast<size_t>(i) * traits.block_bytes;
            for (const int16_t offset : traits.scale_offsets)
                if (offset >= 0 && (load<uint16_t>(block + offset) & kF16Exponent) == kF16Exponent)
                    return i;
        }
        return end;
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
        if (const int64_t bad = first_bad_unit(traits, data, chunk * kChunk, end); bad < end)
            first = std::min(first, bad);
    }
    if (first == std::numeric_limits<int64_t>::max())
        return std::nullopt;
    return first;
}

} // namespace pyramid
