// The softmax's and SwiGLU's exp (backend/vector_exp.h): within 1 ulp of e^x on every
// instruction set, the same float for the same input on AVX2 and AVX-512 and wherever the value
// sits in the array, and the edges of float range as expf gives them.
#include <QtTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backend/kernel_config.h"
#include "backend/vector_exp.h"

using namespace pyramid;
using cpu::KernelIsa;

namespace {

std::vector<KernelIsa> supported_isas()
{
    std::vector<KernelIsa> isas;
    for (const KernelIsa isa : {KernelIsa::Generic, KernelIsa::Avx2, KernelIsa::Avx512Vnni})
        if (cpu::kernel_isa_supported(isa))
            isas.push_back(isa);
    return isas;
}

std::vector<float> exp_of(std::vector<float> v, KernelIsa isa)
{
    cpu::exp_in_place(v.data(), static_cast<int64_t>(v.size()), isa);
    return v;
}

// Softmax inputs (score - max: 0 down to about -100) and SwiGLU's (-gate, either sign), with
// the range where float results are subnormal or overflow.
std::vector<float> random_inputs(size_t n, std::mt19937& rng)
{
    std::uniform_real_distribution<float> wide(-110.0f, 95.0f), narrow(-20.0f, 20.0f);
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i)
        v[i] = i % 2 ? wide(rng) : narrow(rng);
    return v;
}

} // namespace

class VectorExpTest : public QObject {
    Q_OBJECT

private slots:
    void every_isa_is_within_one_ulp_of_e_to_the_x()
    {
        std::mt19937 rng(std::random_device{}());
        const std::vector<float> x = random_inputs(200000, rng);
        for (const KernelIsa isa : supported_isas()) {
            const std::vector<float> y = exp_of(x, isa);
            for (size_t i = 0; i < x.size(); ++i) {
                const double exact = std::exp(static_cast<double>(x[i]));
                if (exact > std::numeric_limits<float>::max() * 0.999 || exact < std::numeric_limits<float>::min())
                    continue;  // the edges: below
                const float rounded = static_cast<float>(exact);
                const double ulp = std::nextafter(rounded, INFINITY) - rounded;
                QVERIFY2(std::abs(y[i] - exact) <= ulp,
                         (std::string(cpu::kernel_isa_name(isa)) + ": e^" + std::to_string(x[i]) + " gave " +
                          std::to_string(y[i]) + ", not " + std::to_string(exact))
                             .c_str());
            }
        }
    }

    void avx2_and_avx512_give_the_same_floats()
    {
        if (!cpu::kernel_isa_supported(KernelIsa::Avx512Vnni))
            QSKIP("this CPU has no AVX-512: only one vector exp runs here");
        std::mt19937 rng(std::random_device{}());
        const std::vector<float> x = random_inputs(500000, rng);
        const std::vector<float> avx2 = exp_of(x, KernelIsa::Avx2), avx512 = exp_of(x, KernelIsa::Avx512Vnni);
        for (size_t i = 0; i < x.size(); ++i)
            QVERIFY2(std::bit_cast<uint32_t>(avx2[i]) == std::bit_cast<uint32_t>(avx512[i]),
                     ("e^" + std::to_string(x[i]) + ": " + std::to_string(avx2[i]) + " on AVX2, " +
                      std::to_string(avx512[i]) + " on AVX-512")
                         .c_str());
    }

    // A softmax row's values are exponentiated wherever the row starts and however long it is:
    // in the vector body or the tail, a value's result is the same.
    void a_value_gives_the_same_float_anywhere_in_the_array()
    {
        std::mt19937 rng(std::random_device{}());
        const std::vector<float> x = random_inputs(64, rng);
        for (const KernelIsa isa : supported_isas()) {
            const std::vector<float> whole = exp_of(x, isa);
            for (size_t begin = 0; begin < 20; ++begin)
                for (size_t n = 1; begin + n <= x.size(); n += 3) {
                    std::vector<float> part(x.begin() + long(begin), x.begin() + long(begin + n));
                    cpu::exp_in_place(part.data(), static_cast<int64_t>(n), isa);
                    for (size_t i = 0; i < n; ++i)
                        QCOMPARE(std::bit_cast<uint32_t>(part[i]), std::bit_cast<uint32_t>(whole[begin + i]));
                }
        }
    }

    void the_edges_of_float_range()
    {
        const float inf = std::numeric_limits<float>::infinity();
        const std::vector<float> x{0.0f, -0.0f, inf, -inf, NAN, 89.0f, 88.5f, -87.0f, -103.5f, -104.0f, -1000.0f};
        for (const KernelIsa isa : supported_isas()) {
            const std::vector<float> y = exp_of(x, isa);
            QCOMPARE(y[0], 1.0f);
            QCOMPARE(y[1], 1.0f);
            QCOMPARE(y[2], inf);
            QCOMPARE(y[3], 0.0f);
            QVERIFY(std::isnan(y[4]));
            QCOMPARE(y[5], inf);                                   // past FLT_MAX
            QVERIFY(std::isfinite(y[6]) && y[6] > 2.7e38f);        // e^88.5, just below it
            QVERIFY(y[7] >= std::numeric_limits<float>::min());    // still normal
            QVERIFY(y[8] > 0.0f && y[8] < std::numeric_limits<float>::min());  // subnormal
            QCOMPARE(y[9], 0.0f);
            QCOMPARE(y[10], 0.0f);
        }
    }

    void an_empty_array_is_left_alone()
    {
        for (const KernelIsa isa : supported_isas()) {
            float sentinel = 5.0f;
            cpu::exp_in_place(&sentinel, 0, isa);
            QCOMPARE(sentinel, 5.0f);
        }
    }
};

QTEST_GUILESS_MAIN(VectorExpTest)
#include "test_vector_exp.moc"
