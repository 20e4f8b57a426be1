// q8 and q4 KV cache entries (backend/kv_entry_types.h): the block layout, the kernels that
// read them (generic and AVX2), attention over them, and a whole model's cache stored in them.
//
// Tolerances: a stored value is scale * code, exact in float32, so the kernels over quantized
// rows give exactly the floats of the float32 kernels over the decoded rows (tolerance 0, both
// instruction sets). Against the values before quantization the error is the rounding's: at
// most half a step (scale / 2) a value, which the attention checks bound as stated there.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "backend/cache_rows.h"
#include "backend/cpu_backend.h"
#include "backend/cpu_kernels.h"
#include "backend/kv_entry_types.h"
#include "backend/row_buffer.h"
#include "generate/batch_scheduler.h"
#include "generate/inference_session.h"
#include "generate/sampler.h"
#include "kv/compression_presets.h"
#include "model/synthetic_weights.h"
#include "util/error.h"
#include "random_values.h"

using namespace pyramid;
using test::max_abs_diff;
using test::random_vector;

namespace {

template <typename Block>
std::vector<Block> quantized(const std::vector<float>& values)
{
    std::vector<Block> blocks(values.size() / kKvBlockValues);
    store_values(values.data(), static_cast<int64_t>(values.size()), blocks.data());
    return blocks;
}

template <typename Block>
std::vector<float> decoded(const std::vector<Block>& blocks)
{
    std::vector<float> values(blocks.size() * kKvBlockValues);
    load_values(blocks.data(), static_cast<int64_t>(values.size()), values.data());
    return values;
}

template <typename Block>
constexpr int kMaxCode = std::is_same_v<Block, KvQ8Block> ? 127 : 7;

// Each value within half a step of the block's scale, and the block's largest magnitude at the
// largest code.
template <typename Block>
void check_rounding()
{
    std::mt19937 rng(std::random_device{}());
    std::vector<float> values = random_vector(4 * kKvBlockValues, rng, 3.0f);
    std::fill_n(values.begin() + kKvBlockValues, kKvBlockValues, 0.0f);  // an all-zero block
    values[2 * kKvBlockValues + 5] = 1000.0f;                            // an outlier in another
    const std::vector<Block> blocks = quantized<Block>(values);
    const std::vector<float> back = decoded(blocks);
    for (size_t b = 0; b < blocks.size(); ++b) {
        const float scale = to_float(blocks[b].scale);
        float largest = 0.0f;
        for (int i = 0; i < kKvBlockValues; ++i)
            largest = std::max(largest, std::fabs(values[b * kKvBlockValues + i]));
        QVERIFY(std::fabs(scale * kMaxCode<Block> - largest) <= largest * 1e-3f);  // the fp16 scale's rounding
        for (int i = 0; i < kKvBlockValues; ++i) {
            const size_t at = b * kKvBlockValues + i;
            QVERIFY2(std::fabs(back[at] - values[at]) <= 0.5f * scale * (1.0f + 1e-3f),
                     qPrintable(QString("value %1: %2 stored as %3").arg(at).arg(values[at]).arg(back[at])));
        }
    }
    QCOMPARE(to_float(blocks[1].scale), 0.0f);
    QCOMPARE(back[2 * kKvBlockValues + 5], to_float(blocks[2].scale) * kMaxCode<Block>);  // the outlier
}

// Rows with a gap between them (stride > row), some rows of large values, so each block's
// scale matters.
template <typename Block>
std::vector<Block> random_rows(int count, int n, int stride_blocks, std::mt19937& rng)
{
    std::vector<Block> rows(size_t(count) * stride_blocks);
    for (int j = 0; j < count; ++j) {
        const std::vector<float> values = random_vector(size_t(n), rng, j % 3 == 0 ? 20.0f : 1.0f);
        store_values(values.data(), n, rows.data() + size_t(j) * stride_blocks);
    }
    return rows;
}

// The row kernels of `isa` over quantized rows give exactly the float32 kernels' floats over
// the decoded rows (generic float32: the reference every other kernel matches).
template <typename Block>
void check_row_kernels_exact(cpu::KernelIsa isa)
{
    std::mt19937 rng(std::random_device{}());
    const cpu::RowKernels<Block> kernels = cpu::row_kernels<Block>(isa);
    const cpu::RowKernels<float> reference = cpu::row_kernels<float>(cpu::KernelIsa::Generic);
    // Head sizes of 32 to 128 values (one block, the 64-value register tiles, a remainder of
    // 32); row counts below, at and above the four rows the AVX2 dot takes together.
    for (auto [n, count] : {std::pair{32, 37}, {64, 3}, {96, 37}, {128, 4}, {128, 1}, {160, 9}}) {
        const int stride_blocks = n / kKvBlockValues + 1;
        const std::vector<Block> rows = random_rows<Block>(count, n, stride_blocks, rng);
        const std::vector<float> floats = decoded(rows);
        const int float_stride = stride_blocks * kKvBlockValues;
        const auto q = random_vector(size_t(n), rng), weights = random_vector(size_t(count), rng);
        std::vector<float> dots(size_t(count), NAN), expected(dots.size(), NAN);
        kernels.dot(q.data(), rows.data(), stride_blocks, count, n, dots.data());
        reference.dot(q.data(), floats.data(), float_stride, count, n, expected.data());
        QCOMPARE(dots, expected);
        std::vector<float> sums = random_vector(size_t(n), rng), expected_sums = sums;
        kernels.accumulate(weights.data(), rows.data(), stride_blocks, count, n, sums.data());
        reference.accumulate(weights.data(), floats.data(), float_stride, count, n, expected_sums.data());
        QCOMPARE(sums, expected_sums);
    }
}

// Entries of one type kept head by head as the backend keeps them, and their decoded values
// packed [len, kv_heads * hd] as the float reference takes them.
template <typename Stored>
struct HeadRows {
    std::vector<std::vector<Stored>> heads;
    std::vector<const Stored*> pointers;
    std::vector<float> packed;
    int stride = 0;

    HeadRows(const std::vector<float>& values, int len, int kv_heads, int hd)
        : heads(size_t(kv_heads)), packed(values.size()), stride(hd / kValuesPerElement<Stored>)
    {
        const int kw = kv_heads * hd;
        for (int g = 0; g < kv_heads; ++g) {
            heads[size_t(g)].resize(size_t(len) * stride);
            for (int j = 0; j < len; ++j) {
                Stored* row = heads[size_t(g)].data() + size_t(j) * stride;
                store_values(values.data() + size_t(j) * kw + g * hd, hd, row);
                for (int d = 0; d < hd; ++d)
                    packed[size_t(j) * kw + g * hd + d] = value_at(row, d);
            }
            pointers.push_back(heads[size_t(g)].data());
        }
    }
    cpu::CacheHeads<Stored> cache() const { return {pointers, stride}; }
};

// Attention over K and V stored as KStored and VStored: exactly float attention over the decoded
// entries (probe scores included), and within `tolerance` of float attention over the entries
// before quantization (outputs; probe scores within a tenth of it, they are weights summing to
// at most the probe rows' weight). One fixed draw: the error against float attention is a
// distribution's tail, not a bound (see attention_over_quantized_entries), so a fresh draw each
// run would fail now and then; the bound for every draw is the rounding tests' half a step.
template <typename KStored, typename VStored>
void check_attention(double tolerance)
{
    std::mt19937 rng(20261128);
    for (auto [heads, kv_heads, hd, len, n_q] : {std::tuple{8, 2, 64, 41, 41}, {4, 4, 32, 67, 1}, {6, 3, 128, 30, 7}}) {
        const int qw = heads * hd, kw = kv_heads * hd;
        const auto q = random_vector(size_t(n_q) * qw, rng, 0.3f);
        const auto k = random_vector(size_t(len) * kw, rng), v = random_vector(size_t(len) * kw, rng);
        const HeadRows<KStored> keys(k, len, kv_heads, hd);
        const HeadRows<VStored> values(v, len, kv_heads, hd);
        AttentionProbe probe;
        probe.first_row = n_q / 2;
        probe.row_weights.assign(size_t(n_q - probe.first_row), 0.75f);
        std::vector<float> out(size_t(n_q) * qw, NAN), probe_out(size_t(len), NAN);
        std::vector<float> decoded_out(out.size(), NAN), decoded_probe(probe_out.size(), NAN);
        std::vector<float> float_out(out.size(), NAN), float_probe(probe_out.size(), NAN);
        const cpu::AttentionShape shape{heads, kv_heads, hd};
        cpu::attention(q.data(), n_q, keys.cache(), values.cache(), len, shape, out.data(), &probe, probe_out.data());
        cpu::attention(q.data(), n_q, keys.packed.data(), values.packed.data(), len, shape, decoded_out.data(), &probe,
                       decoded_probe.data());
        cpu::attention(q.data(), n_q, k.data(), v.data(), len, shape, float_out.data(), &probe, float_probe.data());
        QCOMPARE(out, decoded_out);
        QCOMPARE(probe_out, decoded_probe);
        const double out_error = max_abs_diff(out, float_out), probe_error = max_abs_diff(probe_out, float_probe);
        QVERIFY2(out_error < tolerance, qPrintable(QString("output off by %1").arg(out_error)));
        QVERIFY2(probe_error < tolerance / 10, qPrintable(QString("probe scores off by %1").arg(probe_error)));
    }
}

// A small model whose heads take quantized rows (64 values: two blocks).
ModelConfig small_config()
{
    return ModelConfig{.name = "synthetic", .n_vocab = 97, .dim = 128, .ffn_dim = 192, .n_layers = 3, .n_heads = 2,
                       .n_kv_heads = 1, .head_dim = 64, .context_length = 256};
}

double relative_error(const std::vector<float>& a, const std::vector<float>& b)
{
    double diff = 0, norm = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        diff += double(a[i] - b[i]) * (a[i] - b[i]);
        norm += double(b[i]) * b[i];
    }
    return std::sqrt(diff / norm);
}

} // namespace

class KvQuantizedTest : public QObject {
    Q_OBJECT
private slots:
    // The one definition of the layouts: their sizes, and where a q4 block keeps value 0 and 16.
    void block_layout()
    {
        QCOMPARE(sizeof(KvQ8Block), size_t(34));
        QCOMPARE(sizeof(KvQ4Block), size_t(18));
        std::vector<float> values(kKvBlockValues, 0.0f);
        values[0] = 7.0f;    // the largest: code 7, nibble 15
        values[16] = -7.0f;  // code -7, nibble 1
        values[1] = 3.0f;
        const KvQ4Block b = quantized<KvQ4Block>(values)[0];
        QCOMPARE(to_float(b.scale), 1.0f);
        QCOMPARE(int(b.q[0]), 0x1F);  // value 0 low, value 16 high
        QCOMPARE(int(b.q[1]), 0x8B);  // 3 + 8 low, 0 + 8 high
        QCOMPARE(value_at(&b, 16), -7.0f);
        QCOMPARE(kv_row_bytes(KvPrecision::Q8, 128), size_t(4 * 34));
        QCOMPARE(kv_row_bytes(KvPrecision::Q4, 128), size_t(4 * 18));
        QCOMPARE(kv_entry_bytes({KvPrecision::Q8, KvPrecision::F16}, 8, 128), size_t(8 * (4 * 34 + 256)));
        QVERIFY_THROWS_EXCEPTION(Error, kv_row_bytes(KvPrecision::Q8, 48));
        QVERIFY_THROWS_EXCEPTION(Error, kv_element_bytes(KvPrecision::Q4));
    }

    // load_values decodes block by block: every value is value_at's float, bit for bit, for
    // any bits in the codes and any finite scale (subnormal and the largest included).
    void load_values_is_value_at()
    {
        std::mt19937 rng(std::random_device{}());
        const auto check = [&](auto block_type) {
            using Block = decltype(block_type);
            std::vector<Block> blocks(64);
            for (size_t b = 0; b < blocks.size(); ++b) {
                auto* bytes = reinterpret_cast<uint8_t*>(&blocks[b]);
                for (size_t i = 0; i < sizeof(Block); ++i)
                    bytes[i] = static_cast<uint8_t>(rng());
                const uint16_t scales[] = {0x0001, 0x03FF, 0x3C00, 0x7BFF, 0xBC00};  // subnormal .. largest, negative
                blocks[b].scale.bits = b < 5 ? scales[b] : static_cast<uint16_t>(rng() & 0x7BFF);
            }
            const int64_t n = static_cast<int64_t>(blocks.size()) * kKvBlockValues;
            std::vector<float> loaded(static_cast<size_t>(n));
            load_values(blocks.data(), n, loaded.data());
            for (int64_t i = 0; i < n; ++i) {
                const float expected = value_at(blocks.data(), i);
                QVERIFY2(std::memcmp(&loaded[size_t(i)], &expected, sizeof(float)) == 0, qPrintable(QString::number(i)));
            }
        };
        check(KvQ8Block{});
        check(KvQ4Block{});
    }

    void q8_rounds_within_half_a_step() { check_rounding<KvQ8Block>(); }
    void q4_rounds_within_half_a_step() { check_rounding<KvQ4Block>(); }

    void names_parse_back()
    {
        for (KvPrecision p : {KvPrecision::F32, KvPrecision::F16, KvPrecision::Q8, KvPrecision::Q4})
            QCOMPARE(parse_kv_precision(kv_precision_name(p)), p);
        QVERIFY_THROWS_EXCEPTION(Error, parse_kv_precision("q8_0"));
        QCOMPARE(kv_types_name({KvPrecision::Q8, KvPrecision::Q4}), std::string("K q8, V q4"));
        QCOMPARE(kv_types_name(KvPrecision::Q4), std::string("q4"));
    }

    void generic_kernels_are_exact_over_decoded_rows()
    {
        check_row_kernels_exact<KvQ8Block>(cpu::KernelIsa::Generic);
        check_row_kernels_exact<KvQ4Block>(cpu::KernelIsa::Generic);
    }

    // And so equal to the generic ones, bit for bit.
    void avx2_kernels_are_exact_over_decoded_rows()
    {
        if (!cpu::kernel_isa_supported(cpu::KernelIsa::Avx2))
            QSKIP("this CPU has no AVX2");
        check_row_kernels_exact<KvQ8Block>(cpu::KernelIsa::Avx2);
        check_row_kernels_exact<KvQ4Block>(cpu::KernelIsa::Avx2);
    }

    // Values N(0, 1), queries N(0, 0.3): outputs within 0.03 of float attention with q8 keys or
    // values, 0.45 with q4. Half a q4 step is a fourteenth of a block's largest value (about 3.5
    // for 32 draws of N(0, 1): 0.25), and q4 keys move the weights as well. Over 700 seeds (2,100
    // cases) the largest errors were 0.019 (q8) and 0.32 (q4), 99th percentiles 0.015 and 0.26.
    void attention_over_quantized_entries()
    {
        check_attention<KvQ8Block, KvQ8Block>(0.03);
        check_attention<KvQ8Block, Half>(0.03);
        check_attention<Half, KvQ4Block>(0.45);
        check_attention<KvQ4Block, KvQ4Block>(0.45);
        check_attention<float, KvQ8Block>(0.03);
    }

    // Dropping entries moves the kept rows with their own scales.
    void row_buffer_keeps_blocks_with_their_scales()
    {
        constexpr int kBlocks = 2, kValues = kBlocks * kKvBlockValues;
        RowBuffer<KvQ8Block> buffer(kBlocks);
        std::vector<float> rows(size_t(100) * kValues);
        for (int r = 0; r < 100; ++r)
            for (int i = 0; i < kValues; ++i)
                rows[size_t(r) * kValues + i] = float(r + 1) * (i % 2 ? 1.0f : -0.5f);  // r + 1: code 127
        buffer.append(rows.data(), 100);
        QCOMPARE(buffer.bytes(), size_t(100) * kBlocks * sizeof(KvQ8Block));
        const std::vector<int> kept = {3, 50, 99};
        buffer.keep(kept);
        QCOMPARE(buffer.rows(), 3);
        for (int r = 0; r < 3; ++r) {
            const KvQ8Block* row = buffer.data() + r * kBlocks;
            const float scale = to_float(to_half(float(kept[size_t(r)] + 1) / 127.0f));
            QCOMPARE(to_float(row[1].scale), scale);
            QCOMPARE(value_at(row, kValues - 1), 127.0f * scale);
            QCOMPARE(row[1].q[1], int8_t(127));
        }
    }

    // A model's cache in q8 or q4: the bytes each entry takes, logits near the float32 cache's
    // through PyramidInfer's compaction and a context shift (quantized keys rotated), and a
    // model whose heads are not whole blocks refused.
    void model_cache_in_quantized_entries()
    {
        const ModelWeights weights = generate_model_weights(small_config(), TensorType::F32, 20261128, true);
        CpuBackend exact_backend(weights, KvPrecision::F32);
        const CompressionConfig pyramid = compression_preset("reference-7b");
        std::mt19937 rng(7);
        std::vector<int32_t> prompt(120);
        for (int32_t& t : prompt)
            t = int32_t(rng() % 97);
        struct Case {
            KvTypes types;
            size_t entry_bytes;
            double tolerance;
        };
        for (const Case& c : {Case{KvPrecision::Q8, 2 * 2 * 34, 2e-2}, Case{KvPrecision::Q4, 2 * 2 * 18, 2e-1},
                              Case{{KvPrecision::Q8, KvPrecision::F16}, 2 * 34 + 64 * 2, 2e-2}}) {
            CpuBackend backend(weights, c.types);
            QCOMPARE(backend.kv_entry_bytes(), c.entry_bytes);
            InferenceSession exact(exact_backend, pyramid), stored(backend, pyramid);
            std::vector<float> reference = exact.prefill(prompt), logits = stored.prefill(prompt);
            double worst = relative_error(logits, reference);
            size_t entries = 0;
            for (int l = 0; l < stored.cache().n_layers(); ++l) {
                QCOMPARE(stored.cache().positions(l).size(), exact.cache().positions(l).size());
                entries += stored.cache().positions(l).size();
            }
            QVERIFY(entries < size_t(3 * 120));  // PyramidInfer dropped some
            QCOMPARE(stored.cache().bytes(), entries * c.entry_bytes);
            const int room = exact.context_length() - 60;  // more than the prompt leaves
            const int freed = exact.make_room(room);
            QVERIFY(freed > 0);
            QCOMPARE(stored.make_room(room), freed);
            for (int step = 0; step < 6; ++step) {
                const int32_t next = Sampler::argmax(reference);
                reference = exact.decode(next);
                logits = stored.decode(next);
                worst = std::max(worst, relative_error(logits, reference));
            }
            qInfo("%s cache: largest relative logit error %.3g", kv_types_name(c.types).c_str(), worst);
            QVERIFY(worst > 0.0);
            QVERIFY(worst < c.tolerance);
        }
        ModelConfig odd = small_config();
        odd.dim = 96;
        odd.n_heads = 2;
        odd.head_dim = 48;
        const ModelWeights odd_weights = generate_model_weights(odd, TensorType::F32, 1, true);
        try {
            CpuBackend backend(odd_weights, {KvPrecision::F16, KvPrecision::Q4});
            QFAIL("a q4 cache of 48-value heads was made");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("multiple of 32") != std::string::npos, e.what());
        }
    }

    // The scheduler admits sequences by the bytes their entries take as stored: a budget that
    // holds two and a half fp16 prompts takes 2 of them, 4 in q8 (0.53 of fp16's bytes) and all 8
    // in q4 (0.28).
    void scheduler_admits_by_the_stored_bytes()
    {
        const ModelWeights weights = generate_model_weights(small_config(), TensorType::F32, 3, true);
        constexpr int kPrompt = 64;
        const size_t f16_prompt = size_t(kPrompt) * small_config().n_layers * kv_entry_bytes(KvPrecision::F16, 1, 64);
        const auto admitted = [&](KvPrecision type) {
            CpuBackend backend(weights, type);
            BatchScheduler scheduler(backend, {16, f16_prompt * 5 / 2, 8192});
            BatchRequest r;
            for (int t = 0; t < kPrompt; ++t)
                r.prompt.push_back(int32_t(1 + t % 90));
            r.max_new_tokens = 4;
            r.compression.policy = CompressionPolicyKind::Full;
            for (int i = 0; i < 8; ++i)
                scheduler.submit(r);
            scheduler.step();
            return scheduler.running();
        };
        QCOMPARE(admitted(KvPrecision::F16), 2);
        QCOMPARE(admitted(KvPrecision::Q8), 4);
        QCOMPARE(admitted(KvPrecision::Q4), 8);
    }
};

QTEST_GUILESS_MAIN(KvQuantizedTest)
#include "test_kv_quantized.moc"
