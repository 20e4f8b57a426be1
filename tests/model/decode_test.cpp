// Weight decoding: fp16/bf16 conversions (exhaustive and property-checked rounding), the type
// table, hand-built blocks with known values, and every tensor of the two synthetic K-quant
// GGUF files decoded in one call and compared with ggml's own dequantization (SHA-256 of all
// values, and the stored first/last 512 values bit for bit).
#include <QCryptographicHash>
#include <QtTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/gguf_file.h"
#include "model/tensor_type.h"
#include "shared_data.h"
#include "util/error.h"
#include "util/float16.h"

using namespace pyramid;

namespace {

// True when `h` is the correctly rounded (nearest, ties to even) encoding of x among the
// finite neighbours, judged in double precision independently of the converter.
bool is_nearest(float x, uint16_t h, float (*decode)(uint16_t))
{
    const double target = x;
    const double mine = decode(h);
    for (int delta : {-1, 1}) {
        const uint16_t other = static_cast<uint16_t>(h + delta);
        if (((other ^ h) & 0x8000u) != 0)
            continue;  // crossed the sign bit
        const double alt = decode(other);
        if (std::isnan(alt) || std::isinf(alt))
            continue;
        const double a = std::fabs(target - mine), b = std::fabs(target - alt);
        if (b < a || (b == a && (h & 1u)))
            return false;
    }
    return true;
}

std::vector<float> decode_all(TensorType type, const std::byte* data, int64_t n)
{
    std::vector<float> out(static_cast<size_t>(n));
    tensor_type_traits(type).to_float(data, out.data(), n);
    return out;
}

void put_half(std::vector<uint8_t>& block, size_t at, float value)
{
    const uint16_t h = fp32_to_fp16(value);
    std::memcpy(block.data() + at, &h, 2);
}

} // namespace

class DecodeTest : public QObject {
    Q_OBJECT

private slots:
    void fp16KnownValues()
    {
        QCOMPARE(fp16_to_fp32(0x3c00), 1.0f);
        QCOMPARE(fp16_to_fp32(0xc000), -2.0f);
        QCOMPARE(fp16_to_fp32(0x7bff), 65504.0f);
        QCOMPARE(fp16_to_fp32(0x0001), std::ldexp(1.0f, -24));
        QCOMPARE(fp16_to_fp32(0x03ff), std::ldexp(1023.0f, -24));
        QCOMPARE(fp16_to_fp32(0x0400), std::ldexp(1.0f, -14));
        QVERIFY(std::isinf(fp16_to_fp32(0x7c00)) && fp16_to_fp32(0x7c00) > 0);
        QVERIFY(std::isinf(fp16_to_fp32(0xfc00)) && fp16_to_fp32(0xfc00) < 0);
        QVERIFY(std::isnan(fp16_to_fp32(0x7e00)));
        QCOMPARE(std::bit_cast<uint32_t>(fp16_to_fp32(0x8000)), 0x80000000u);
    }

    void fp16RoundTripsEveryValue()
    {
        for (uint32_t h = 0; h <= 0xffff; ++h) {
            const float f = fp16_to_fp32(static_cast<uint16_t>(h));
            if (std::isnan(f))
                QVERIFY(std::isnan(fp16_to_fp32(fp32_to_fp16(f))));
            else if (fp32_to_fp16(f) != h)
                QFAIL(qPrintable(QString("half 0x%1 does not round-trip").arg(h, 4, 16)));
        }
    }

    void fp16RowConvertsAsEachValue()
    {
        // fp32_to_fp16_row (F16C on this CPU where it has it) against fp32_to_fp16 one value at
        // a time, bit for bit: random bit patterns of every kind (NaN payloads, infinities, float32
        // subnormals, values that round past 65504 or into half subnormals), every length up to
        // 40 so the eight-wide part and the tail both run.
        std::mt19937 rng(11);
        std::vector<float> x(40);
        std::vector<uint16_t> row(40);
        int nan_chunks = 0;
        for (int round = 0; round < 20000; ++round) {
            const int n = round % 41;
            for (float& v : x) {
                uint32_t bits = static_cast<uint32_t>(rng());
                if (rng() % 2)  // half the values in and near the half range
                    bits = (bits & 0x807fffffu) | ((96u + rng() % 50u) << 23);
                if (rng() % 4 == 0)  // a tie between two normal halves
                    bits = (bits & ~0x1fffu) | 0x1000u;
                v = std::bit_cast<float>(bits);
            }
            nan_chunks += std::isnan(x[0]);
            fp32_to_fp16_row(x.data(), row.data(), n);
            for (int i = 0; i < n; ++i)
                if (row[size_t(i)] != fp32_to_fp16(x[size_t(i)]))
                    QFAIL(qPrintable(QString("0x%1 -> 0x%2, fp32_to_fp16 gives 0x%3")
                                         .arg(std::bit_cast<uint32_t>(x[size_t(i)]), 8, 16)
                                         .arg(row[size_t(i)], 4, 16)
                                         .arg(fp32_to_fp16(x[size_t(i)]), 4, 16)));
        }
        QVERIFY(nan_chunks > 0);  // the random patterns did include NaNs
    }

    void fp16RoundsToNearestEven()
    {
        QCOMPARE(fp32_to_fp16(1.0f + std::ldexp(1.0f, -11)), uint16_t{0x3c00});       // tie, down to even
        QCOMPARE(fp32_to_fp16(1.0f + 3 * std::ldexp(1.0f, -11)), uint16_t{0x3c02});   // tie, up to even
        QCOMPARE(fp32_to_fp16(65519.0f), uint16_t{0x7bff});
        QCOMPARE(fp32_to_fp16(65520.0f), uint16_t{0x7c00});                           // rounds past the max
        QCOMPARE(fp32_to_fp16(std::ldexp(1.0f, -25)), uint16_t{0});                   // tie with zero
        QCOMPARE(fp32_to_fp16(std::ldexp(1.5f, -25)), uint16_t{1});
        QCOMPARE(fp32_to_fp16(-std::ldexp(1.0f, -30)), uint16_t{0x8000});
        std::mt19937 rng(5);
        for (int i = 0; i < 300000; ++i) {
            // Random float32 bit patterns with exponents around the half range.
            const auto bits = static_cast<uint32_t>((rng() & 0x807fffffu) | ((100u + rng() % 45u) << 23));
            const float x = std::bit_cast<float>(bits);
            const uint16_t h = fp32_to_fp16(x);
            if (std::fabs(x) < 65504.0f && !is_nearest(x, h, fp16_to_fp32))
                QFAIL(qPrintable(QString("%1 -> 0x%2 is not the nearest half").arg(double(x), 0, 'g', 9).arg(h, 4, 16)));
        }
    }

    void bf16Conversions()
    {
        for (uint32_t h = 0; h <= 0xffff; ++h) {
            const float f = bf16_to_fp32(static_cast<uint16_t>(h));
            if (!std::isnan(f) && fp32_to_bf16(f) != h)
                QFAIL(qPrintable(QString("bf16 0x%1 does not round-trip").arg(h, 4, 16)));
        }
        QCOMPARE(fp32_to_bf16(1.0f + std::ldexp(1.0f, -8)), uint16_t{0x3f80});      // tie, down to even
        QCOMPARE(fp32_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), uint16_t{0x3f82});  // tie, up to even
        QVERIFY(std::isnan(bf16_to_fp32(fp32_to_bf16(std::nanf("")))));
        QVERIFY(std::isnan(bf16_to_fp32(fp32_to_bf16(std::bit_cast<float>(0x7f800001u)))));  // NaN never becomes inf
        std::mt19937 rng(6);
        for (int i = 0; i < 300000; ++i) {
            const float x = std::bit_cast<float>(static_cast<uint32_t>((rng() & 0x807fffffu) | ((1u + rng() % 250u) << 23)));
            if (!is_nearest(x, fp32_to_bf16(x), bf16_to_fp32))
                QFAIL(qPrintable(QString("%1 is not rounded to the nearest bf16").arg(double(x), 0, 'g', 9)));
        }
    }

    void typeTable()
    {
        const struct {
            uint32_t id;
            const char* name;
            int64_t block_elems;
            size_t block_bytes;
        } expected[] = {
            {0, "f32", 1, 4},      {1, "f16", 1, 2},      {30, "bf16", 1, 2},    {2, "q4_0", 32, 18},
            {3, "q4_1", 32, 20},   {6, "q5_0", 32, 22},   {7, "q5_1", 32, 24},   {8, "q8_0", 32, 34},
            {10, "q2_K", 256, 84}, {11, "q3_K", 256, 110}, {12, "q4_K", 256, 144}, {13, "q5_K", 256, 176},
            {14, "q6_K", 256, 210},
        };
        for (const auto& e : expected) {
            const auto t = tensor_type_traits(e.id);
            QVERIFY2(t.has_value(), e.name);
            QCOMPARE(t->name, std::string_view(e.name));
            QCOMPARE(t->block_elems, e.block_elems);
            QCOMPARE(t->block_bytes, e.block_bytes);
            QCOMPARE(static_cast<uint32_t>(t->type), e.id);
            QCOMPARE(tensor_type_traits(t->type).name, std::string_view(e.name));
        }
        for (uint32_t unknown : {4u, 5u, 9u, 15u, 16u, 29u, 31u, 99u, 0xffffffffu})
            QVERIFY(!tensor_type_traits(unknown).has_value());
        QCOMPARE(tensor_row_bytes(TensorType::Q4_K, 512), size_t{288});
        QCOMPARE(tensor_row_bytes(TensorType::F16, 7), size_t{14});
        QCOMPARE(tensor_row_bytes(TensorType::Q8_0, 4096), size_t{4352});
        QVERIFY_THROWS_EXCEPTION(Error, tensor_row_bytes(TensorType::Q4_K, 100));
        QVERIFY_THROWS_EXCEPTION(Error, tensor_row_bytes(TensorType::Q4_0, 33));
    }

    void handBuiltBlocks()
    {
        // Q8_0: d = 0.5, q = -16..15 -> q / 2.
        std::vector<uint8_t> q8(34);
        put_half(q8, 0, 0.5f);
        for (int j = 0; j < 32; ++j)
            q8[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(j - 16));
        auto v = decode_all(TensorType::Q8_0, reinterpret_cast<const std::byte*>(q8.data()), 32);
        for (int j = 0; j < 32; ++j)
            QCOMPARE(v[j], (j - 16) * 0.5f);

        // Q4_0: d = 2; byte j holds element j (low nibble) and element j + 16 (high nibble).
        std::vector<uint8_t> q4(18);
        put_half(q4, 0, 2.0f);
        for (int j = 0; j < 16; ++j)
            q4[2 + j] = static_cast<uint8_t>(j | ((15 - j) << 4));
        v = decode_all(TensorType::Q4_0, reinterpret_cast<const std::byte*>(q4.data()), 32);
        for (int j = 0; j < 16; ++j) {
            QCOMPARE(v[j], (j - 8) * 2.0f);
            QCOMPARE(v[j + 16], (7 - j) * 2.0f);
        }

        // Q4_K: d = 1, dmin = 0.25, every 6-bit scale 1 and min 2 -> nibble - 0.5. Bytes 0..31
        // of qs give elements 0..31 (low nibbles) and 32..63 (high nibbles).
        std::vector<uint8_t> qk(144, 0);
        put_half(qk, 0, 1.0f);
        put_half(qk, 2, 0.25f);
        for (int j = 0; j < 4; ++j) {
            qk[4 + j] = 1;      // scales 0..3
            qk[8 + j] = 2;      // mins 0..3
            qk[12 + j] = 0x21;  // scales 4..7 (low nibble), mins 4..7 (high nibble)
        }
        for (int j = 0; j < 128; ++j)
            qk[16 + j] = static_cast<uint8_t>((j % 16) | ((15 - j % 16) << 4));
        v = decode_all(TensorType::Q4_K, reinterpret_cast<const std::byte*>(qk.data()), 256);
        for (int j = 0; j < 256; ++j) {
            const int byte = (j / 64) * 32 + j % 32;
            const int nibble = (j % 64) < 32 ? byte % 16 : 15 - byte % 16;
            QCOMPARE(v[j], nibble - 0.5f);
        }

        // Q6_K: d = 1, every scale 3, all quants zero -> (0 - 32) * 3.
        std::vector<uint8_t> q6(210, 0);
        for (int j = 0; j < 16; ++j)
            q6[192 + j] = 3;
        put_half(q6, 208, 1.0f);
        v = decode_all(TensorType::Q6_K, reinterpret_cast<const std::byte*>(q6.data()), 256);
        for (float x : v)
            QCOMPARE(x, -96.0f);
    }

    void kquantsMatchGgml_data()
    {
        QTest::addColumn<QString>("stem");
        QTest::newRow("q4_k_m") << "synthetic-llama-q4_k_m";
        QTest::newRow("mixed") << "synthetic-llama-mixed";
    }

    void kquantsMatchGgml()
    {
        QFETCH(QString, stem);
        const std::string base = "models/kquants/" + stem.toStdString();
        PYRAMID_REQUIRE_SHARED(path, base + ".gguf");
        PYRAMID_REQUIRE_SHARED(json_path, base + ".dequant.json");
        PYRAMID_REQUIRE_SHARED(sample_path, base + ".dequant-sample.f32");
        std::ifstream json_in(json_path);
        const nlohmann::json ref = nlohmann::json::parse(json_in);
        std::ifstream sample_in(sample_path, std::ios::binary);
        const std::string sample((std::istreambuf_iterator<char>(sample_in)), std::istreambuf_iterator<char>());

        const GgufFile f = GgufFile::open(path);
        QCOMPARE(f.version(), ref["gguf_version"].get<uint32_t>());
        QCOMPARE(f.alignment(), ref["gguf_alignment"].get<uint32_t>());
        QCOMPARE(f.data_offset(), ref["gguf_data_offset"].get<uint64_t>());
        QCOMPARE(f.tensors().size(), ref["n_tensors"].get<size_t>());
        for (const auto& t : ref["tensors"]) {
            const GgufTensorInfo& info = f.tensors().at(t["index"].get<size_t>());
            const std::string what = info.name + " (" + t["type"].get<std::string>() + ")";
            QCOMPARE(info.name, t["name"].get<std::string>());
            QCOMPARE(static_cast<uint32_t>(info.type), t["type_id"].get<uint32_t>());
            QCOMPARE(info.n_dims, static_cast<int>(t["ne"].size()));
            for (size_t d = 0; d < t["ne"].size(); ++d)
                QCOMPARE(info.ne[d], t["ne"][d].get<int64_t>());
            QCOMPARE(info.offset, t["gguf_offset"].get<uint64_t>());
            QCOMPARE(info.nbytes, t["gguf_nbytes"].get<size_t>());

            const std::vector<float> values = decode_all(info.type, info.data, info.elements());
            const QByteArray sha = QCryptographicHash::hash(
                QByteArrayView(reinterpret_cast<const char*>(values.data()), qsizetype(values.size() * 4)),
                QCryptographicHash::Sha256).toHex();
            if (sha.toStdString() != t["dequant_sha256"].get<std::string>()) {
                // Locate the first differing stored sample for the report.
                const size_t n = values.size(), head = std::min<size_t>(n, 512);
                std::vector<float> expected(t["sample_nbytes"].get<size_t>() / 4);
                std::memcpy(expected.data(), sample.data() + t["sample_offset"].get<size_t>(), expected.size() * 4);
                std::vector<float> mine(values.begin(), values.begin() + head);
                if (n > 1024)
                    mine.insert(mine.end(), values.end() - 512, values.end());
                for (size_t i = 0; i < mine.size() && i < expected.size(); ++i)
                    if (std::bit_cast<uint32_t>(mine[i]) != std::bit_cast<uint32_t>(expected[i]))
                        QFAIL(qPrintable(QString("%1: sample %2 is %3, ggml has %4").arg(QString::fromStdString(what))
                                             .arg(i).arg(double(mine[i]), 0, 'g', 9).arg(double(expected[i]), 0, 'g', 9)));
                QFAIL(qPrintable(QString::fromStdString(what + ": SHA-256 differs from ggml's")));
            }
        }
    }
};

QTEST_APPLESS_MAIN(DecodeTest)
#include "decode_test.moc"
