// The CPU's quantized matmul kernels on fresh random data: every tile decoder (generic and
// AVX2) bit for bit against to_float; matmul_rows / cpu::matmul of every weight type against a
// float64 reference over the dequantized weights, at sizes that leave partial tiles, token
// groups and row chunks; the int8 path against the same reference with the activations as
// rounded to int8.
#include <QtTest>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu_kernels.h"
#include "backend/int8_activations.h"
#include "backend/int8_matmul.h"
#include "backend/kernel_config.h"
#include "backend/quant_matmul.h"
#include "backend/tile_decoder.h"
#include "util/float16.h"
#if defined(__x86_64__) || defined(__i386__)
#include "backend/avx2_blocks.h"
#endif

using namespace pyramid;
using cpu::KernelIsa;

namespace {

const TensorType kTypes[] = {TensorType::F32,  TensorType::F16,  TensorType::BF16, TensorType::Q4_0,
                             TensorType::Q4_1, TensorType::Q5_0, TensorType::Q5_1, TensorType::Q8_0,
                             TensorType::Q2_K, TensorType::Q3_K, TensorType::Q4_K, TensorType::Q5_K,
                             TensorType::Q6_K};

#if defined(__x86_64__) || defined(__i386__)
// Halves whose float from the AVX2 kernels' F16C conversion differs from the portable one's
// (NaN only has to stay NaN: F16C may quiet a signalling one).
PYRAMID_AVX2 int f16c_half_mismatches()
{
    int mismatches = 0;
    for (uint32_t h = 0; h <= 0xffff; ++h) {
        uint8_t bytes[2];
        const auto bits = static_cast<uint16_t>(h);
        std::memcpy(bytes, &bits, 2);
        const float portable = quant::half_at(bytes), f16c = cpu::avx2::half_at(bytes);
        const bool same = std::isnan(portable) ? std::isnan(f16c) : std::memcmp(&portable, &f16c, 4) == 0;
        mismatches += same ? 0 : 1;
    }
    return mismatches;
}
#endif

std::vector<KernelIsa> supported_isas()
{
    std::vector<KernelIsa> isas{KernelIsa::Generic};
    if (cpu::kernel_isa_supported(KernelIsa::Avx2))
        isas.push_back(KernelIsa::Avx2);
    else
        qInfo("this CPU has no AVX2/FMA/F16C: only the generic kernels are tested");
    return isas;
}

// A random matrix in `type`'s storage: random quant bits, finite random scales, and for
// the float types random normal values.
std::vector<std::byte> random_matrix(TensorType type, int64_t rows, int64_t cols, std::mt19937& rng)
{
    const size_t bytes = static_cast<size_t>(rows) * tensor_row_bytes(type, cols);
    std::vector<std::byte> out(bytes);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    auto put16 = [&](size_t at, uint16_t v) { std::memcpy(out.data() + at, &v, 2); };
    if (type == TensorType::F32) {
        for (size_t i = 0; i < bytes; i += 4) {
            const float v = normal(rng);
            std::memcpy(out.data() + i, &v, 4);
        }
        return out;
    }
    if (type == TensorType::F16 || type == TensorType::BF16) {
        for (size_t i = 0; i < bytes; i += 2)
            put16(i, type == TensorType::F16 ? fp32_to_fp16(normal(rng)) : fp32_to_bf16(normal(rng)));
        return out;
    }
    std::uniform_int_distribution<int> byte(0, 255);
    for (std::byte& b : out)
        b = static_cast<std::byte>(byte(rng));
    const auto& traits = tensor_type_traits(type);
    std::uniform_real_distribution<float> scale(0.001f, 0.05f);
    for (size_t block = 0; block < bytes; block += traits.block_bytes)
        for (const int16_t offset : traits.scale_offsets)
            if (offset >= 0)
                put16(block + static_cast<size_t>(offset), fp32_to_fp16(byte(rng) & 1 ? scale(rng) : -scale(rng)));
    return out;
}

std::vector<float> random_activations(size_t n, std::mt19937& rng)
{
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v)
        x = normal(rng);
    return v;
}

std::string describe(TensorType type, KernelIsa isa, int64_t rows, int64_t cols, int n)
{
    return std::string(tensor_type_traits(type).name) + " on " + std::string(cpu::kernel_isa_name(isa)) + ", " +
           std::to_string(rows) + "x" + std::to_string(cols) + ", n=" + std::to_string(n);
}

// Row lengths that give a single block, a partial decode tile and several tiles.
std::vector<int64_t> test_cols(TensorType type)
{
    const int64_t b = tensor_type_traits(type).block_elems;
    if (b == 1)
        return {1, 33, 300, 517};
    if (b == 256)
        return {b, 3 * b, 11 * b};
    // The 32-value types' one-token kernels take eight blocks at a time: rows ending in a
    // partial group of 1, 3, 6 and 2 blocks (the last is SmolLM2's 576 values).
    return {b, 3 * b, 11 * b, 6 * b, 18 * b};
}

// Float64 products of the dequantized matrix: the value and the sum of |terms| (the scale
// a float32 sum's rounding error is measured against).
struct Reference {
    std::vector<double> value, magnitude;
};

// `stored`: a rows x cols matrix of `type`, decoded by to_float.
Reference reference_matmul(TensorType type, const std::vector<std::byte>& stored, int64_t rows, int64_t cols,
                           const std::vector<float>& x, int n)
{
    std::vector<float> w(size_t(rows * cols));
    tensor_type_traits(type).to_float(stored.data(), w.data(), rows * cols);
    Reference ref{std::vector<double>(static_cast<size_t>(n * rows)), std::vector<double>(static_cast<size_t>(n * rows))};
    for (int t = 0; t < n; ++t)
        for (int64_t r = 0; r < rows; ++r) {
            double sum = 0, magnitude = 0;
            for (int64_t c = 0; c < cols; ++c) {
                const double term = double(w[size_t(r * cols + c)]) * x[size_t(t * cols + c)];
                sum += term;
                magnitude += std::abs(term);
            }
            ref.value[size_t(t * rows + r)] = sum;
            ref.magnitude[size_t(t * rows + r)] = magnitude;
        }
    return ref;
}

// The float64 reference of an int8 product: the decoded weights against the activations as the
// int8 kernels see them (each rounded to its block's int8 grid).
Reference int8_reference(TensorType type, const std::vector<std::byte>& w, int64_t rows, int64_t cols,
                         const cpu::Int8Activations& a, int n)
{
    std::vector<float> rounded(size_t(n * cols));
    for (int t = 0; t < n; ++t)
        for (int64_t c = 0; c < cols; ++c)
            rounded[size_t(t * cols + c)] = a.rounded(t, c);
    return reference_matmul(type, w, rows, cols, rounded, n);
}

// Empty when y matches; else the first bad element. 1e-5 of the magnitude allows float32
// sums of a few hundred terms in any order; a wrongly decoded group is far bigger.
std::string mismatch(const std::vector<float>& y, const Reference& ref, double tolerance = 1e-5)
{
    for (size_t i = 0; i < y.size(); ++i)
        if (!(std::abs(y[i] - ref.value[i]) <= tolerance * ref.magnitude[i] + 1e-30))
            return "element " + std::to_string(i) + ": " + std::to_string(y[i]) + " vs " +
                   std::to_string(ref.value[i]);
    return {};
}

} // namespace

class QuantKernelsTest : public QObject {
    Q_OBJECT
private slots:
    void decoders_are_bit_exact()
    {
        std::mt19937 rng(std::random_device{}());
        for (KernelIsa isa : supported_isas())
            for (TensorType type : kTypes) {
                if (type == TensorType::F32)
                    continue;  // never decoded: the matmul reads F32 rows in place
                for (int64_t n : test_cols(type)) {
                    const auto blocks = random_matrix(type, 1, n, rng);
                    std::vector<float> expected(static_cast<size_t>(n)), got(static_cast<size_t>(n), NAN);
                    tensor_type_traits(type).to_float(blocks.data(), expected.data(), n);
                    cpu::tile_decoder(type, isa)(blocks.data(), got.data(), n);
                    QVERIFY2(std::memcmp(expected.data(), got.data(), size_t(n) * 4) == 0,
                             describe(type, isa, 1, n, 1).c_str());
                }
            }
    }

    // Every fp16 value, subnormals, infinities and both zeros included, converts to the same
    // float in the AVX2 kernels as in the portable code the golden digests were made with.
    void avx2_half_conversion_is_exact()
    {
#if defined(__x86_64__) || defined(__i386__)
        if (!cpu::kernel_isa_supported(KernelIsa::Avx2))
            QSKIP("this CPU has no AVX2/FMA/F16C");
        QCOMPARE(f16c_half_mismatches(), 0);
#else
        QSKIP("F16C is an x86 extension");
#endif
    }

    void avx2_has_a_simd_decoder_for_every_stored_type()
    {
        for (TensorType type : kTypes)
            QCOMPARE(cpu::detail::avx2_tile_decoder(type) != nullptr, type != TensorType::F32);
    }

    void matmul_rows_matches_float64_reference()
    {
        std::mt19937 rng(std::random_device{}());
        for (KernelIsa isa : supported_isas())
            for (TensorType type : kTypes)
                for (int64_t cols : test_cols(type))
                    for (auto [rows, n] : {std::pair<int64_t, int>{1, 1}, {37, 1}, {37, 3}, {5, 6}, {19, 17}}) {
                        const auto w = random_matrix(type, rows, cols, rng);
                        const auto x = random_activations(size_t(n * cols), rng);
                        const Reference ref = reference_matmul(type, w, rows, cols, x, n);

                        const WeightView view{"w", type, rows, cols, w.data()};
                        std::vector<float> y(size_t(n * rows), NAN);
                        cpu::matmul_rows(view, x.data(), n, y.data(), 0, rows, isa);
                        const std::string what = describe(type, isa, rows, cols, n);
                        const std::string bad = mismatch(y, ref);
                        QVERIFY2(bad.empty(), (what + ": " + bad).c_str());
                    }
    }

    // The float path's prompt kernels (rows decoded once; on AVX-512, blocks of rows x tokens)
    // give every token bit for bit what the AVX2 kernel gives it alone, the order the golden
    // files and batch invariance rest on: row lengths with leftover eights and tails, every
    // count of tokens up to 40, calls that start mid-matrix, and cpu::matmul's threads.
    void float_prompt_kernels_match_one_token_bit_for_bit()
    {
        if (!cpu::kernel_isa_supported(KernelIsa::Avx2))
            QSKIP("this CPU has no AVX2/FMA/F16C");
        std::vector<KernelIsa> isas{KernelIsa::Avx2};
        if (cpu::kernel_isa_supported(KernelIsa::Avx512Vnni))
            isas.push_back(KernelIsa::Avx512Vnni);
        else
            qInfo("this CPU has no AVX-512: only the AVX2 prompt path is tested");
        std::mt19937 rng(std::random_device{}());
        const int64_t rows = 7;  // from row 0, 1 or 2: a block of 4 rows and an edge of 3, 2 or 1
        const int most = 40;
        for (TensorType type : {TensorType::F32, TensorType::F16, TensorType::BF16, TensorType::Q4_K})
            for (int64_t cols : type == TensorType::Q4_K ? std::vector<int64_t>{256, 768}
                                                         : std::vector<int64_t>{8, 33, 100, 256, 300, 517, 768}) {
                const auto w = random_matrix(type, rows, cols, rng);
                const auto x = random_activations(size_t(most * cols), rng);
                const WeightView view{"w", type, rows, cols, w.data()};
                std::vector<float> alone(size_t(most * rows));
                for (int t = 0; t < most; ++t)
                    cpu::matmul_rows(view, x.data() + t * cols, 1, alone.data() + t * rows, 0, rows, KernelIsa::Avx2);
                for (KernelIsa isa : isas)
                    for (int n = 1; n <= most; ++n)
                        for (int64_t first : {0, 1, 2}) {
                            std::vector<float> y(size_t(n * rows), NAN);
                            cpu::matmul_rows(view, x.data(), n, y.data(), first, rows, isa);
                            for (int t = 0; t < n; ++t)
                                QVERIFY2(std::memcmp(&y[size_t(t * rows + first)], &alone[size_t(t * rows + first)],
                                                     size_t(rows - first) * 4) == 0,
                                         (describe(type, isa, rows, cols, n) + ", rows from " + std::to_string(first) +
                                          ", token " + std::to_string(t))
                                             .c_str());
                        }
                for (KernelIsa isa : isas) {
                    std::vector<float> y(alone.size(), NAN);
                    cpu::matmul(view, x.data(), most, y.data(), {isa, cpu::QuantizedDot::Exact});
                    QVERIFY2(std::memcmp(y.data(), alone.data(), y.size() * 4) == 0,
                             ("cpu::matmul, " + describe(type, isa, rows, cols, most)).c_str());
                }
            }
    }

    void matmul_rows_writes_only_its_rows()
    {
        std::mt19937 rng(std::random_device{}());
        const int64_t rows = 23, cols = 512;
        const int n = 5;
        for (KernelIsa isa : supported_isas()) {
            const auto w = random_matrix(TensorType::Q4_K, rows, cols, rng);
            const auto x = random_activations(size_t(n * cols), rng);
            const WeightView view{"w", TensorType::Q4_K, rows, cols, w.data()};
            std::vector<float> all(size_t(n * rows)), part(size_t(n * rows), NAN);
            cpu::matmul_rows(view, x.data(), n, all.data(), 0, rows, isa);
            cpu::matmul_rows(view, x.data(), n, part.data(), 7, 16, isa);
            for (int t = 0; t < n; ++t)
                for (int64_t r = 0; r < rows; ++r) {
                    const float got = part[size_t(t * rows + r)];
                    if (r >= 7 && r < 16)
                        QCOMPARE(got, all[size_t(t * rows + r)]);
                    else
                        QVERIFY(std::isnan(got));
                }
        }
    }

    void threaded_matmul_matches_float64_reference()
    {
        // cpu::matmul splits rows into chunks over threads and tokens into tiles: sizes that
        // cross both boundaries, big enough to run in parallel. With QuantizedDot::Int8 the
        // supported types see the activations rounded to int8.
        std::mt19937 rng(std::random_device{}());
        const cpu::KernelConfig config = cpu::best_kernel_config();
        qInfo("cpu::matmul runs the %s kernels, %s quantized dot", std::string(cpu::kernel_isa_name(config.isa)).c_str(),
              std::string(cpu::quantized_dot_name(config.quantized_dot)).c_str());
        for (TensorType type : {TensorType::F32, TensorType::Q4_K, TensorType::Q6_K, TensorType::Q8_0, TensorType::Q3_K})
            for (auto [rows, n] : {std::pair<int64_t, int>{301, 1}, {67, 35}}) {
                const int64_t cols = 768;
                const auto w = random_matrix(type, rows, cols, rng);
                auto x = random_activations(size_t(n * cols), rng);
                const bool int8 = config.quantized_dot == cpu::QuantizedDot::Int8 && cpu::int8_matmul_supported(type);
                Reference ref;
                if (int8) {
                    cpu::Int8Activations a;
                    cpu::quantize_activations(x.data(), n, cols, a);
                    ref = int8_reference(type, w, rows, cols, a, n);
                } else {
                    ref = reference_matmul(type, w, rows, cols, x, n);
                }
                const WeightView view{"w", type, rows, cols, w.data()};
                std::vector<float> y(size_t(n * rows), NAN);
                cpu::matmul(view, x.data(), n, y.data());
                const std::string bad = mismatch(y, ref, int8 ? 1e-4 : 1e-5);
                QVERIFY2(bad.empty(), (describe(type, config.isa, rows, cols, n) + ": " + bad).c_str());
            }
    }

    void matmul_group_equals_each_product()
    {
        // Three products over one x, as a layer's query, key and value projections, run as one
        // group and one by one: the same floats, for every ISA and both dots, with one parallel
        // region (sizes past kParallelWork) or none, for types mixed as a Q4_K_M file mixes them,
        // float32 ones, and int8 and float32 together (which the group runs one by one).
        std::mt19937 rng(std::random_device{}());
        const int64_t cols = 256;
        const std::array<std::array<TensorType, 3>, 3> mixes = {{{TensorType::Q4_K, TensorType::Q4_K, TensorType::Q6_K},
                                                                {TensorType::F32, TensorType::F16, TensorType::F32},
                                                                {TensorType::Q8_0, TensorType::F32, TensorType::Q4_0}}};
        const std::array<int64_t, 3> rows = {37, 64, 19};
        for (const auto& types : mixes)
            for (int n : {1, 3, 20, 40}) {
                std::vector<std::vector<std::byte>> stored;
                std::vector<WeightView> views;
                for (size_t i = 0; i < 3; ++i)
                    stored.push_back(random_matrix(types[i], rows[i], cols, rng));
                for (size_t i = 0; i < 3; ++i)
                    views.push_back({"w", types[i], rows[i], cols, stored[i].data()});
                const auto x = random_activations(size_t(n * cols), rng);
                for (KernelIsa isa : supported_isas())
                    for (cpu::QuantizedDot dot : {cpu::QuantizedDot::Exact, cpu::QuantizedDot::Int8}) {
                        if (dot == cpu::QuantizedDot::Int8 && !cpu::runs_avx2(isa))
                            continue;
                        const cpu::KernelConfig config{isa, dot};
                        std::array<std::vector<float>, 3> alone, grouped;
                        std::array<cpu::MatmulOutput, 3> outputs;
                        for (size_t i = 0; i < 3; ++i) {
                            alone[i].assign(size_t(n * rows[i]), NAN);
                            grouped[i].assign(size_t(n * rows[i]), NAN);
                            cpu::matmul(views[i], x.data(), n, alone[i].data(), config);
                            outputs[i] = {&views[i], grouped[i].data()};
                        }
                        cpu::matmul_group(outputs, x.data(), n, config);
                        for (size_t i = 0; i < 3; ++i)
                            QVERIFY2(std::memcmp(alone[i].data(), grouped[i].data(), alone[i].size() * sizeof(float)) == 0,
                                     (describe(types[i], isa, rows[i], cols, n) + " " +
                                      std::string(cpu::quantized_dot_name(dot)) + ": the group differs")
                                         .c_str());
                    }
            }
    }

    void activations_round_to_int8_per_block()
    {
        std::mt19937 rng(std::random_device{}());
        const int n = 3;
        const int64_t cols = 96;
        auto x = random_activations(size_t(n * cols), rng);
        std::fill_n(x.begin() + 32, 32, 0.0f);  // an all-zero block gets scale 0, not NaN
        cpu::Int8Activations a;
        cpu::quantize_activations(x.data(), n, cols, a);
        for (int t = 0; t < n; ++t) {
            for (int64_t b = 0; b < cols / 32; ++b) {
                float amax = 0;
                for (int64_t i = 32 * b; i < 32 * b + 32; ++i)
                    amax = std::max(amax, std::abs(x[size_t(t * cols + i)]));
                const float scale = a.scale_row(t)[b];
                QCOMPARE(scale, amax / 127.0f);
                for (int64_t i = 32 * b; i < 32 * b + 32; ++i) {
                    const int q = a.q_row(t)[i];
                    QVERIFY(q >= -127 && q <= 127);
                    QVERIFY(std::abs(x[size_t(t * cols + i)] - q * scale) <= 0.5001f * scale);
                    // Nearest, ties to even: what std::nearbyint gives in the default rounding mode.
                    QCOMPARE(q, int(std::nearbyint(x[size_t(t * cols + i)] * (scale > 0 ? 1.0f / scale : 0.0f))));
                    QCOMPARE(a.rounded(t, i), float(q) * scale);
                }
            }
            for (int64_t g = 0; g < cols / cpu::kInt8SumGroup; ++g) {
                int total = 0;
                for (int64_t i = 16 * g; i < 16 * g + 16; ++i)
                    total += a.q_row(t)[i];
                QCOMPARE(int(a.group_sum_row(t)[g]), total);
            }
        }
    }

    void int8_matmul_matches_float64_reference()
    {
        if (!cpu::kernel_isa_supported(KernelIsa::Avx2))
            QSKIP("the int8 kernels need AVX2, which this CPU lacks");
        std::mt19937 rng(std::random_device{}());
        int tested = 0;
        for (TensorType type : kTypes) {
            if (!cpu::int8_matmul_supported(type))
                continue;
            ++tested;
            for (int64_t cols : test_cols(type))
                for (auto [rows, n] : {std::pair<int64_t, int>{1, 1}, {37, 1}, {37, 3}, {5, 6}, {19, 17}}) {
                    const auto w = random_matrix(type, rows, cols, rng);
                    const auto x = random_activations(size_t(n * cols), rng);
                    cpu::Int8Activations a;
                    cpu::quantize_activations(x.data(), n, cols, a);
                    const Reference ref = int8_reference(type, w, rows, cols, a, n);

                    const WeightView view{"w", type, rows, cols, w.data()};
                    std::vector<float> y(size_t(n * rows), NAN);
                    // Two token ranges, to check each writes only its own tokens.
                    cpu::matmul_rows_int8(view, a, 0, n / 2, y.data(), 0, rows, KernelIsa::Avx2);
                    cpu::matmul_rows_int8(view, a, n / 2, n, y.data(), 0, rows, KernelIsa::Avx2);
                    // Weight scales multiply block sums here, not single weights: a few more
                    // roundings than the exact path, still far below any decoding error.
                    const std::string bad = mismatch(y, ref, 1e-4);
                    QVERIFY2(bad.empty(), (describe(type, KernelIsa::Avx2, rows, cols, n) + " int8: " + bad).c_str());
                }
        }
        QCOMPARE(tested, 10);
    }

    // The AVX512-VNNI lane kernels (int8_lanes_vnni.h) against the float64 reference and the
    // AVX2 int8 kernels: token ranges inside and across lane groups (16 tokens), group parts
    // too small for lanes (they run the AVX2 kernels), rows not a multiple of the 4 a pass
    // takes, a restricted row range. The two ISAs compute the same block terms (Q4_K's
    // minimums and Q6_K's offsets associated differently) summed in another order: they
    // must agree within 2e-6 of the sum of |terms| (float32 rounding of ~100 terms).
    void vnni_int8_matches_avx2_and_float64_reference()
    {
        if (!cpu::kernel_isa_supported(KernelIsa::Avx512Vnni))
            QSKIP("this CPU has no AVX512F/BW/VL + AVX512_VNNI");
        std::mt19937 rng(std::random_device{}());
        double worst = 0;
        for (TensorType type : kTypes) {
            if (!cpu::int8_matmul_supported(type))
                continue;
            for (int64_t cols : test_cols(type))
                for (auto [rows, n] : {std::pair<int64_t, int>{1, 1}, {37, 1}, {37, 3}, {5, 6}, {19, 17}, {23, 40}}) {
                    const auto w = random_matrix(type, rows, cols, rng);
                    const auto x = random_activations(size_t(n * cols), rng);
                    cpu::Int8Activations a;
                    cpu::quantize_activations(x.data(), n, cols, a, true);
                    QVERIFY(a.has_lanes());
                    const Reference ref = int8_reference(type, w, rows, cols, a, n);

                    const WeightView view{"w", type, rows, cols, w.data()};
                    const std::string what = describe(type, KernelIsa::Avx512Vnni, rows, cols, n);
                    std::vector<float> avx2(size_t(n * rows), NAN), vnni(avx2.size(), NAN);
                    cpu::matmul_rows_int8(view, a, 0, n, avx2.data(), 0, rows, KernelIsa::Avx2);
                    // Whole, and in three token ranges that cut lane groups (n = 40: 0-13,
                    // 13-26, 26-40).
                    cpu::matmul_rows_int8(view, a, 0, n, vnni.data(), 0, rows, KernelIsa::Avx512Vnni);
                    std::string bad = mismatch(vnni, ref, 1e-4);
                    QVERIFY2(bad.empty(), (what + ": " + bad).c_str());
                    std::vector<float> parts(avx2.size(), NAN);
                    for (int part = 0; part < 3; ++part)
                        cpu::matmul_rows_int8(view, a, n * part / 3, n * (part + 1) / 3, parts.data(), 0, rows,
                                              KernelIsa::Avx512Vnni);
                    bad = mismatch(parts, ref, 1e-4);
                    QVERIFY2(bad.empty(), (what + ", in parts: " + bad).c_str());
                    for (size_t i = 0; i < avx2.size(); ++i) {
                        const double difference = std::abs(double(vnni[i]) - avx2[i]) / (ref.magnitude[i] + 1e-30);
                        worst = std::max(worst, difference);
                        QVERIFY2(difference <= 2e-6, (what + ": element " + std::to_string(i) + " " +
                                                      std::to_string(vnni[i]) + " vs AVX2 " + std::to_string(avx2[i]))
                                                         .c_str());
                    }
                    // Rows 2 .. rows - 2 only: nothing else written.
                    if (rows >= 5) {
                        std::vector<float> part(avx2.size(), NAN);
                        cpu::matmul_rows_int8(view, a, 0, n, part.data(), 2, rows - 2, KernelIsa::Avx512Vnni);
                        for (int t = 0; t < n; ++t)
                            for (int64_t r = 0; r < rows; ++r) {
                                const size_t i = size_t(t * rows + r);
                                if (r >= 2 && r < rows - 2)
                                    QCOMPARE(part[i], vnni[i]);
                                else
                                    QVERIFY(std::isnan(part[i]));
                            }
                    }
                }
        }
        qInfo("largest |VNNI - AVX2| / sum |terms|: %.2e", worst);
    }

    void activations_round_alike_on_every_isa()
    {
        // Every instruction set gives the generic rounding's bytes: q, scales, group sums and
        // lanes, over blocks with an all-zero block, exact ties (x * inverse = k + 0.5 when a
        // block's largest magnitude is 127) and values of every size.
        std::mt19937 rng(std::random_device{}());
        const int n = 21;
        const int64_t cols = 256;
        auto x = random_activations(size_t(n * cols), rng);
        std::fill_n(x.begin() + 64, 32, 0.0f);
        for (int64_t i = 96; i < 128; ++i)  // block 3 of token 0: amax 127, so scale 1 and ties
            x[size_t(i)] = i == 96 ? 127.0f : float(int(rng() % 254) - 127) + 0.5f;
        for (size_t i = 128; i < 160; ++i)
            x[i] *= std::ldexp(1.0f, int(rng() % 40) - 20);
        cpu::Int8Activations generic, other;
        cpu::quantize_activations(x.data(), n, cols, generic, true, KernelIsa::Generic);
        for (KernelIsa isa : supported_isas()) {
            cpu::quantize_activations(x.data(), n, cols, other, true, isa);
            const QByteArray name(cpu::kernel_isa_name(isa).data());
            QVERIFY2(other.q == generic.q, name);
            QVERIFY2(other.scale == generic.scale, name);
            QVERIFY2(other.group_sum == generic.group_sum, name);
            QVERIFY2(other.lanes.q == generic.lanes.q && other.lanes.scale == generic.lanes.scale &&
                         other.lanes.sum == generic.lanes.sum,
                     name);
        }
    }

    void activations_reuse_their_buffers_and_split_over_threads()
    {
        // 40 tokens of 2048 values (over the size that rounds in parallel), then 19 into the same
        // buffers, as cpu::matmul's per-thread buffer is reused: every token as it rounds alone,
        // and the 19-token lanes padded with zeros past token 18.
        std::mt19937 rng(std::random_device{}());
        const int64_t cols = 2048;
        const KernelIsa isa = cpu::best_kernel_config().isa;
        cpu::Int8Activations a, alone;
        for (int n : {40, 19}) {
            const auto x = random_activations(size_t(n * cols), rng);
            cpu::quantize_activations(x.data(), n, cols, a, true, isa);
            QCOMPARE(a.lanes.groups, (n + cpu::kLaneTokens - 1) / cpu::kLaneTokens);
            for (int t = 0; t < n; ++t) {
                cpu::quantize_activations(x.data() + t * cols, 1, cols, alone, false, isa);
                QVERIFY(std::equal(alone.q.begin(), alone.q.end(), a.q_row(t)));
                QVERIFY(std::equal(alone.scale.begin(), alone.scale.end(), a.scale_row(t)));
                QVERIFY(std::equal(alone.group_sum.begin(), alone.group_sum.end(), a.group_sum_row(t)));
            }
            const int g = a.lanes.groups - 1;
            for (int lane = n - g * cpu::kLaneTokens; lane < cpu::kLaneTokens; ++lane)
                for (int64_t b = 0; b < cols / 32; ++b) {
                    QCOMPARE(a.lanes.scale_at(g, b)[lane], 0.0f);
                    for (int k = 0; k < 8; ++k)
                        QCOMPARE(a.lanes.q_at(g, b)[k * cpu::kLaneTokens + lane], 0);
                    for (int h = 0; h < 2; ++h)
                        QCOMPARE(a.lanes.sum_at(g, b)[h * cpu::kLaneTokens + lane], 0);
                }
        }
    }

    void vnni_lanes_give_each_group_its_floats_in_any_tile()
    {
        // 300 tokens (two tiles of lane groups, the last group partial) against each lane group
        // run alone: the same floats, whether a group's rows were decoded for it or for a tile.
        if (!cpu::kernel_isa_supported(KernelIsa::Avx512Vnni))
            QSKIP("this CPU has no AVX512F/BW/VL + AVX512_VNNI");
        std::mt19937 rng(std::random_device{}());
        const int n = 300;
        const int64_t rows = 19, cols = 256;
        for (TensorType type : {TensorType::Q4_K, TensorType::Q6_K, TensorType::Q8_0}) {
            const auto w = random_matrix(type, rows, cols, rng);
            const auto x = random_activations(size_t(n * cols), rng);
            cpu::Int8Activations a;
            cpu::quantize_activations(x.data(), n, cols, a, true);
            const WeightView view{"w", type, rows, cols, w.data()};
            std::vector<float> whole(size_t(n * rows), NAN), groups(whole.size(), NAN);
            cpu::matmul_rows_int8(view, a, 0, n, whole.data(), 0, rows, KernelIsa::Avx512Vnni);
            for (int t0 = 0; t0 < n; t0 += cpu::kLaneTokens)
                cpu::matmul_rows_int8(view, a, t0, std::min(n, t0 + cpu::kLaneTokens), groups.data(), 0, rows,
                                      KernelIsa::Avx512Vnni);
            QVERIFY2(std::memcmp(whole.data(), groups.data(), whole.size() * sizeof(float)) == 0,
                     describe(type, KernelIsa::Avx512Vnni, rows, cols, n).c_str());
        }
    }

    void token_lanes_hold_the_rounded_activations()
    {
        std::mt19937 rng(std::random_device{}());
        const int n = 19;
        const int64_t cols = 96;
        const auto x = random_activations(size_t(n * cols), rng);
        cpu::Int8Activations a;
        cpu::quantize_activations(x.data(), n, cols, a, true);
        QCOMPARE(a.lanes.groups, 2);
        for (int g = 0; g < 2; ++g)
            for (int64_t b = 0; b < cols / 32; ++b)
                for (int lane = 0; lane < cpu::kLaneTokens; ++lane) {
                    const int t = g * cpu::kLaneTokens + lane;
                    for (int k = 0; k < 8; ++k) {
                        int8_t q[4];
                        std::memcpy(q, a.lanes.q_at(g, b) + k * cpu::kLaneTokens + lane, 4);
                        for (int i = 0; i < 4; ++i)
                            QCOMPARE(int(q[i]), t < n ? int(a.q_row(t)[32 * b + 4 * k + i]) : 0);
                    }
                    QCOMPARE(a.lanes.scale_at(g, b)[lane], t < n ? a.scale_row(t)[b] : 0.0f);
                    for (int h = 0; h < 2; ++h)
                        QCOMPARE(a.lanes.sum_at(g, b)[h * cpu::kLaneTokens + lane],
                                 t < n ? int32_t(a.group_sum_row(t)[2 * b + h]) : 0);
                }
        cpu::quantize_activations(x.data(), n, cols, a);
        QVERIFY(!a.has_lanes());
    }
};

QTEST_APPLESS_MAIN(QuantKernelsTest)
#include "quant_kernels_test.moc"
