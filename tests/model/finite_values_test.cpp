// first_non_finite (model/finite_values.h), the load-time check for NaN and infinity: the index
// of the first bad element of each float type, wherever it lies (in a run the vectorized test
// passes over, in a later chunk than another bad one, the last), none for finite tensors whose
// bits would be bad in another float format, and the first block of a quantized type whose
// scale is bad.
#include <QTest>
#include <cstring>
#include <random>
#include <vector>

#include "model/finite_values.h"
#include "model/tensor_type.h"

using pyramid::TensorType;

namespace {

// Finite values of `bits` bits, each with an exponent below all ones; some with the bits that
// are all ones in another format's exponent (0x7C00 is a finite bfloat16).
template <typename Bits>
std::vector<Bits> finite_values(size_t n, Bits exponent, std::mt19937& rng)
{
    std::vector<Bits> values(n);
    for (Bits& v : values) {
        v = static_cast<Bits>(rng());
        if ((v & exponent) == exponent)
            v = static_cast<Bits>(v & ~(exponent & (exponent >> 1)));  // clears the exponent's top bits
    }
    if constexpr (sizeof(Bits) == 2)
        if (exponent == 0x7F80u)
            values[7] = 0x7C00u;
    return values;
}

template <typename Bits>
std::optional<int64_t> check(TensorType type, const std::vector<Bits>& values)
{
    return pyramid::first_non_finite(type, reinterpret_cast<const std::byte*>(values.data()),
                                     static_cast<int64_t>(values.size()));
}

template <typename Bits>
void check_float_type(TensorType type, Bits exponent, Bits infinity, Bits nan)
{
    std::mt19937 rng(7);
    const size_t n = 3 * 65536 + 777;  // chunks of 65,536 and runs of 512, the last ones short
    std::vector<Bits> values = finite_values<Bits>(n, exponent, rng);
    QCOMPARE(check(type, values), std::nullopt);
    for (const size_t at : {size_t{0}, size_t{511}, size_t{512}, size_t{65535}, size_t{65539}, n - 1})
        for (const Bits bad : {infinity, nan, static_cast<Bits>(infinity | (Bits{1} << (sizeof(Bits) * 8 - 1)))}) {
            std::vector<Bits> with = values;
            with[at] = bad;
            QCOMPARE(check(type, with), std::optional<int64_t>(static_cast<int64_t>(at)));
        }
    std::vector<Bits> two = values;
    two.at(150000) = nan;  // in the third chunk
    two.at(70000) = infinity;
    two.at(300) = nan;
    QCOMPARE(check(type, two), std::optional<int64_t>(300));  // the first, not a later chunk's
    two[300] = values[300];
    QCOMPARE(check(type, two), std::optional<int64_t>(70000));
}

} // namespace

class FiniteValuesTest : public QObject {
    Q_OBJECT

private slots:
    void floatTypesReportTheirFirstBadElement()
    {
        check_float_type<uint32_t>(TensorType::F32, 0x7F800000u, 0x7F800000u, 0x7FC00001u);
        check_float_type<uint16_t>(TensorType::F16, 0x7C00u, 0x7C00u, 0x7E01u);
        check_float_type<uint16_t>(TensorType::BF16, 0x7F80u, 0x7F80u, 0x7FC1u);
    }

    void quantizedTypesReportTheFirstBlockWithABadScale()
    {
        const pyramid::TensorTypeTraits& traits = pyramid::tensor_type_traits(TensorType::Q4_K);
        const int64_t blocks = 1000;
        std::vector<std::byte> data(static_cast<size_t>(blocks) * traits.block_bytes, std::byte{0xFF});
        const uint16_t one = 0x3C00;  // every other byte all ones: any bits but the scales are valid
        for (int64_t b = 0; b < blocks; ++b)
            for (const int16_t offset : traits.scale_offsets)
                std::memcpy(data.data() + b * traits.block_bytes + offset, &one, 2);
        const auto first = [&] { return pyramid::first_non_finite(TensorType::Q4_K, data.data(), blocks * traits.block_elems); };
        QCOMPARE(first(), std::nullopt);
        for (const int16_t offset : traits.scale_offsets) {
            const uint16_t nan = 0x7E00;
            std::memcpy(data.data() + 613 * traits.block_bytes + offset, &nan, 2);
            QCOMPARE(first(), std::optional<int64_t>(613));
            std::memcpy(data.data() + 613 * traits.block_bytes + offset, &one, 2);
        }
    }
};

QTEST_GUILESS_MAIN(FiniteValuesTest)
#include "finite_values_test.moc"
