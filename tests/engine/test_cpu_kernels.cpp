// CPU kernels against float64 references computed the slow obvious way, on fresh random
// inputs at several sizes (odd lengths, GQA ratios). Tolerances are for float32 sums.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

#include "backend/cache_rows.h"
#include "backend/cpu_kernels.h"
#include "backend/float_dot.h"
#include "backend/key_tiles.h"
#include "backend/kv_entry_types.h"
#include "backend/layer_slices.h"
#include "backend/row_buffer.h"
#include "backend/worker_pool.h"
#include "model/synthetic_weights.h"
#include "random_values.h"

using namespace pyramid;
using test::max_abs_diff;
using test::random_vector;

namespace {

template <typename T>
void check_row_buffer_slack()
{
    constexpr int width = 8;
    const auto rows_of = [](int first, int count) {
        std::vector<float> out(size_t(count) * width);
        for (int r = 0; r < count; ++r)
            std::fill_n(out.begin() + r * width, width, float(first + r));
        return out;
    };
    const auto most_bytes = [](int rows) {  // the rows plus an eighth, at least 64 rows
        const size_t values = size_t(rows) * width;
        return (values + std::max(values / 8, RowBuffer<T>::kMinGrowRows * width)) * sizeof(T);
    };
    RowBuffer<T> buffer(width);
    buffer.append(rows_of(0, 1000).data(), 1000);  // a prompt
    for (int r = 1000; r < 1200; ++r) {           // then generated tokens one by one
        buffer.append(rows_of(r, 1).data(), 1);
        QVERIFY(buffer.allocated_bytes() <= most_bytes(buffer.rows()));
    }
    QCOMPARE(buffer.rows(), 1200);
    QCOMPARE(buffer.bytes(), size_t(1200) * width * sizeof(T));

    std::vector<int> kept;
    for (int r = 0; r < 1200; r += 10)
        kept.push_back(r);
    buffer.keep(kept);
    QCOMPARE(buffer.rows(), 120);
    QVERIFY(buffer.allocated_bytes() <= most_bytes(120));
    for (int r = 0; r < 120; ++r)  // whole numbers to 2048 are exact in fp16
        QCOMPARE(cpu::as_float(buffer.data()[r * width + width - 1]), float(kept[size_t(r)]));
    buffer.append(rows_of(2000, 1).data(), 1);
    QCOMPARE(cpu::as_float(buffer.data()[120 * width]), 2000.0f);
}

template <typename Stored>
void check_row_kernels_agree()
{
    std::mt19937 rng(std::random_device{}());
    const cpu::RowKernels<Stored> generic = cpu::row_kernels<Stored>(cpu::KernelIsa::Generic);
    const cpu::RowKernels<Stored> avx2 = cpu::row_kernels<Stored>(cpu::KernelIsa::Avx2);
    // Lengths through each kernel's paths: 64-value blocks, 8-value vectors, a scalar tail; row
    // counts below and above the four rows the dot takes together, and not a multiple of it.
    for (auto [n, count] : {std::pair{1, 37}, {7, 3}, {8, 37}, {64, 2}, {77, 37}, {100, 37}, {128, 37}, {128, 1}}) {
        const int stride = n + 5;
        std::vector<Stored> rows(size_t(count) * stride);
        for (Stored& x : rows) {
            const float value = random_vector(1, rng, 2.0f)[0];
            if constexpr (std::is_same_v<Stored, Half>)
                x = to_half(value);
            else
                x = value;
        }
        const auto q = random_vector(size_t(n), rng), weights = random_vector(size_t(count), rng);
        std::vector<float> dots(size_t(count), NAN), dots_avx2(dots.size(), NAN);
        generic.dot(q.data(), rows.data(), stride, count, n, dots.data());
        avx2.dot(q.data(), rows.data(), stride, count, n, dots_avx2.data());
        QCOMPARE(dots_avx2, dots);
        std::vector<float> sums = random_vector(size_t(n), rng), sums_avx2 = sums;
        generic.accumulate(weights.data(), rows.data(), stride, count, n, sums.data());
        avx2.accumulate(weights.data(), rows.data(), stride, count, n, sums_avx2.data());
        QCOMPARE(sums_avx2, sums);
    }
}

// The kernels taking several queries at once give each query the one-query generic kernels'
// floats and write nothing else: every row count to 40 (none, odd, across the AVX2 row groups),
// query counts around the four taken together, head sizes of real models and, for float32 and
// fp16 rows, sizes with a scalar tail.
template <typename Stored>
void check_query_kernels_agree(cpu::KernelIsa isa)
{
    constexpr float kUntouched = -1234.5f;
    std::mt19937 rng(std::random_device{}());
    const cpu::RowKernels<Stored> one = cpu::row_kernels<Stored>(cpu::KernelIsa::Generic);
    const cpu::RowKernels<Stored> kernels = cpu::row_kernels<Stored>(isa);
    constexpr bool kBlocks = kValuesPerElement<Stored> > 1;
    const std::vector<int> sizes = kBlocks ? std::vector<int>{32, 64, 96, 128} : std::vector<int>{5, 64, 77, 96, 128};
    for (const int n : sizes) {
        const int stride = n / kValuesPerElement<Stored> + 1, q_stride = n + 3;
        for (int count = 0; count <= 40; ++count) {
            std::vector<Stored> rows(size_t(count) * stride);
            for (int j = 0; j < count; ++j)
                store_values(random_vector(size_t(n), rng, j % 3 == 0 ? 20.0f : 1.0f).data(), n,
                             rows.data() + size_t(j) * stride);
            for (const int n_q : {1, 3, 4, 5, 8, 11}) {
                const int out_stride = count + 2, w_stride = count + 1;
                const auto q = random_vector(size_t(n_q) * q_stride, rng);
                const auto weights = random_vector(size_t(n_q) * w_stride, rng);
                std::vector<float> dots(size_t(n_q) * out_stride, kUntouched), expected = dots;
                kernels.dot_queries(q.data(), q_stride, n_q, rows.data(), stride, count, n, dots.data(), out_stride);
                for (int r = 0; r < n_q; ++r)
                    one.dot(q.data() + r * q_stride, rows.data(), stride, count, n, expected.data() + r * out_stride);
                QCOMPARE(dots, expected);

                const int sums_stride = n + 1;
                std::vector<float> sums = random_vector(size_t(n_q) * sums_stride, rng), expected_sums = sums;
                kernels.accumulate_queries(weights.data(), w_stride, n_q, rows.data(), stride, count, n, sums.data(),
                                           sums_stride);
                for (int r = 0; r < n_q; ++r)
                    one.accumulate(weights.data() + r * w_stride, rows.data(), stride, count, n,
                                   expected_sums.data() + r * sums_stride);
                QCOMPARE(sums, expected_sums);
            }
        }
    }
}

// Dots over key tiles are float_dot.h's dots over the rows as stored, bit for bit, for every
// stored type: head sizes with and without a tail of under eight values, key counts around a
// tile's sixteen (none, one, a partial last tile), one to five queries (pairs and a last one).
// Past the keys the last tile's zero keys give zero dots, and nothing past the tile is written.
// A tiles object laid out again for other rows gives theirs.
template <typename Stored>
void check_key_tile_dots()
{
    constexpr float kUntouched = -1234.5f;
    constexpr int kWidth = cpu::KeyTiles::kWidth;
    std::mt19937 rng(std::random_device{}());
    constexpr bool kBlocks = kValuesPerElement<Stored> > 1;
    const std::vector<int> sizes = kBlocks ? std::vector<int>{32, 64, 96, 128} : std::vector<int>{5, 13, 64, 77, 128};
    cpu::KeyTiles tiles, by_value;  // one object throughout: each lay_out below has other rows
    for (const int n : sizes) {
        const int stride = n / kValuesPerElement<Stored> + 1, q_stride = n + 3;
        for (const int count : {0, 1, 15, 16, 17, 40, 100}) {
            std::vector<Stored> rows(size_t(count) * stride + 1);
            for (int j = 0; j < count; ++j)
                store_values(random_vector(size_t(n), rng, j % 3 == 0 ? 20.0f : 1.0f).data(), n,
                             rows.data() + size_t(j) * stride);
            tiles.lay_out(rows.data(), stride, count, n, cpu::KernelIsa::Avx512Vnni);
            QCOMPARE(tiles.keys(), count);
            const int padded = (count + kWidth - 1) / kWidth * kWidth;
            // AVX-512's transposed blocks hold the floats laid out value by value, padding included.
            by_value.lay_out(rows.data(), stride, count, n, cpu::KernelIsa::Generic);
            for (int t = 0; t < padded / kWidth; ++t)
                QVERIFY(std::equal(tiles.tile(t), tiles.tile(t) + size_t(n) * kWidth, by_value.tile(t)));
            for (const int n_q : {1, 2, 3, 4, 5}) {
                const int out_stride = padded + 3;
                const auto q = random_vector(size_t(n_q) * q_stride, rng);
                std::vector<float> dots(size_t(n_q) * out_stride, kUntouched), expected = dots;
                cpu::key_tile_dots(tiles, q.data(), q_stride, n_q, count, dots.data(), out_stride,
                                   cpu::KernelIsa::Avx512Vnni);
                for (int r = 0; r < n_q; ++r) {
                    for (int j = 0; j < count; ++j)
                        expected[size_t(r) * out_stride + j] =
                            cpu::dot(q.data() + r * q_stride, rows.data() + j * stride, n);
                    std::fill_n(expected.begin() + r * out_stride + count, padded - count, 0.0f);
                }
                QCOMPARE(dots, expected);
            }
        }
    }
}

// A prompt's rows get the very floats each row gets alone against the entries it sees: the rows
// go through the kernels four at a time over the entries they share and one by one past them,
// chunks of four starting mid-head included, and quantized keys and values are decoded once for
// 16 rows or more.
template <typename KStored, typename VStored>
void check_prompt_rows_as_alone(cpu::KernelIsa isa)
{
    std::mt19937 rng(std::random_device{}());
    for (auto [heads, kv_heads, hd, len, n_q] :
         {std::tuple{6, 2, 64, 45, 13}, {4, 4, 32, 70, 70}, {3, 1, 96, 21, 21}, {8, 8, 128, 40, 6}}) {
        const int qw = heads * hd, k_stride = hd / kValuesPerElement<KStored>,
                  v_stride = hd / kValuesPerElement<VStored>;
        std::vector<std::vector<KStored>> k_heads(size_t(kv_heads), std::vector<KStored>(size_t(len) * k_stride));
        std::vector<std::vector<VStored>> v_heads(size_t(kv_heads), std::vector<VStored>(size_t(len) * v_stride));
        std::vector<const KStored*> k_ptrs;
        std::vector<const VStored*> v_ptrs;
        for (int g = 0; g < kv_heads; ++g) {
            for (int j = 0; j < len; ++j) {
                store_values(random_vector(size_t(hd), rng).data(), hd, k_heads[size_t(g)].data() + j * k_stride);
                store_values(random_vector(size_t(hd), rng).data(), hd, v_heads[size_t(g)].data() + j * v_stride);
            }
            k_ptrs.push_back(k_heads[size_t(g)].data());
            v_ptrs.push_back(v_heads[size_t(g)].data());
        }
        const cpu::CacheHeads<KStored> k{k_ptrs, k_stride};
        const cpu::CacheHeads<VStored> v{v_ptrs, v_stride};
        const auto q = random_vector(size_t(n_q) * qw, rng);
        std::vector<float> out(size_t(n_q) * qw, NAN);
        cpu::attention(q.data(), n_q, k, v, len, {heads, kv_heads, hd}, out.data(), nullptr, nullptr, isa);
        for (int i = 0; i < n_q; ++i) {
            std::vector<float> alone(size_t(qw), NAN);
            cpu::attention(q.data() + i * qw, 1, k, v, len - n_q + i + 1, {heads, kv_heads, hd}, alone.data(), nullptr,
                           nullptr, isa);
            QCOMPARE(std::vector<float>(out.begin() + i * qw, out.begin() + (i + 1) * qw), alone);
        }
    }
}

// A decode step's one row takes the query heads of a KV head together: each head gets the
// floats it gets alone, attending by itself to its KV head's entries (shape {1, 1, hd}), for
// groups of one to eight heads (Llama 2, a pair, SmolLM2's three, Llama 3's four, and past four
// with each remainder), head sizes with and without a tail (float32 and fp16), caches shorter
// and longer than the keys one task dots (with a partial last range). A probe's columns (per
// KV head or over all heads, PyramidInfer's decode probe of weight 1 and another) are the
// heads' own probes added as the chunks of four heads always added them: each chunk from zero,
// chunk c into slot c % 16, the slots in order; 72 heads fill more than 16 chunks. Without a
// probe, or with one that does not read the row, the heads' floats are the same.
template <typename KStored, typename VStored>
void check_decode_heads_as_alone(cpu::KernelIsa isa)
{
    constexpr int kChunkHeads = 4, kSlots = 16;
    std::mt19937 rng(std::random_device{}());
    WorkerPool four(4);  // for the whole row: few KV heads for four threads split the values' dimensions
    for (auto [heads, kv_heads, hd, len] :
         {std::tuple{4, 4, 64, 37}, {4, 2, 32, 1}, {9, 3, 64, 70}, {8, 2, 128, 33}, {5, 1, 64, 16}, {6, 1, 96, 9},
          {7, 1, 32, 40}, {16, 2, 64, 21}, {9, 3, 64, 1500}, {4, 1, 128, 513}, {2, 2, 80, 300}, {72, 8, 32, 45}}) {
        if (hd % kValuesPerElement<KStored> != 0 || hd % kValuesPerElement<VStored> != 0)
            continue;  // q8 and q4 rows hold whole blocks of 32
        const int group = heads / kv_heads;
        const int k_stride = hd / kValuesPerElement<KStored>, v_stride = hd / kValuesPerElement<VStored>;
        std::vector<std::vector<KStored>> k_heads(size_t(kv_heads), std::vector<KStored>(size_t(len) * k_stride));
        std::vector<std::vector<VStored>> v_heads(size_t(kv_heads), std::vector<VStored>(size_t(len) * v_stride));
        for (int g = 0; g < kv_heads; ++g)
            for (int j = 0; j < len; ++j) {
                store_values(random_vector(size_t(hd), rng).data(), hd, k_heads[size_t(g)].data() + j * k_stride);
                store_values(random_vector(size_t(hd), rng).data(), hd, v_heads[size_t(g)].data() + j * v_stride);
            }
        std::vector<const KStored*> k_ptrs;
        std::vector<const VStored*> v_ptrs;
        for (int g = 0; g < kv_heads; ++g) {
            k_ptrs.push_back(k_heads[size_t(g)].data());
            v_ptrs.push_back(v_heads[size_t(g)].data());
        }
        const auto q = random_vector(size_t(heads) * hd, rng);
        for (const bool per_kv_head : {false, true})
            for (const float row_weight : {1.0f, 0.37f}) {
                AttentionProbe probe{0, {row_weight}, per_kv_head};
                const int lists = per_kv_head ? kv_heads : 1;
                std::vector<float> out(size_t(heads) * hd, NAN), probe_out(size_t(lists) * len, NAN);
                cpu::attention(q.data(), 1, cpu::CacheHeads<KStored>{k_ptrs, k_stride},
                               cpu::CacheHeads<VStored>{v_ptrs, v_stride}, len, {heads, kv_heads, hd}, out.data(),
                               &probe, probe_out.data(), isa, &four);
                std::vector<std::vector<float>> head_probes;
                for (int h = 0; h < heads; ++h) {
                    const size_t g = size_t(h / group);
                    // Alone, a head's probe is its scores times its weight in the whole.
                    AttentionProbe own{0, {per_kv_head ? row_weight : row_weight / float(heads)}, per_kv_head};
                    std::vector<float> alone(size_t(hd), NAN), alone_probe(size_t(len), NAN);
                    cpu::attention(q.data() + h * hd, 1, cpu::CacheHeads<KStored>{std::span(&k_ptrs[g], 1), k_stride},
                                   cpu::CacheHeads<VStored>{std::span(&v_ptrs[g], 1), v_stride}, len, {1, 1, hd},
                                   alone.data(), &own, alone_probe.data(), isa);
                    QCOMPARE(std::vector<float>(out.begin() + h * hd, out.begin() + (h + 1) * hd), alone);
                    head_probes.push_back(alone_probe);
                }
                const int chunks = (heads + kChunkHeads - 1) / kChunkHeads, slot_count = std::min(kSlots, chunks);
                std::vector<float> expected(probe_out.size(), 0.0f);
                for (int list = 0; list < lists; ++list)
                    for (int j = 0; j < len; ++j)
                        for (int slot = 0; slot < slot_count; ++slot) {
                            float partial = 0.0f;
                            for (int c = slot; c < chunks; c += slot_count)
                                for (int h = c * kChunkHeads; h < std::min(heads, (c + 1) * kChunkHeads); ++h)
                                    if (!per_kv_head || h / group == list)
                                        partial += head_probes[size_t(h)][size_t(j)];
                            expected[size_t(list) * len + j] += partial;
                        }
                QCOMPARE(probe_out, expected);
            }
        // Without a probe, and with one that does not read the row (which leaves zeros), the
        // heads get the same floats.
        AttentionProbe later{1, {}, false};
        std::vector<float> out(size_t(heads) * hd, NAN), probe_out(size_t(len), NAN), plain(out.size(), NAN);
        cpu::attention(q.data(), 1, cpu::CacheHeads<KStored>{k_ptrs, k_stride}, cpu::CacheHeads<VStored>{v_ptrs, v_stride},
                       len, {heads, kv_heads, hd}, out.data(), &later, probe_out.data(), isa, &four);
        QCOMPARE(probe_out, std::vector<float>(size_t(len), 0.0f));
        cpu::attention(q.data(), 1, cpu::CacheHeads<KStored>{k_ptrs, k_stride}, cpu::CacheHeads<VStored>{v_ptrs, v_stride},
                       len, {heads, kv_heads, hd}, plain.data(), nullptr, nullptr, isa, &four);
        QCOMPARE(plain, out);
    }
}

} // namespace

class CpuKernelsTest : public QObject {
    Q_OBJECT
private slots:
    void matmul_f32()
    {
        std::mt19937 rng(std::random_device{}());
        for (auto [rows, cols, n] : {std::tuple{7, 33, 1}, {64, 64, 17}, {172, 64, 40}}) {
            std::vector<float> w = random_vector(size_t(rows) * cols, rng), x = random_vector(size_t(n) * cols, rng);
            WeightView view{"w", TensorType::F32, rows, cols, reinterpret_cast<const std::byte*>(w.data())};
            std::vector<float> y(size_t(n) * rows);
            cpu::matmul(view, x.data(), n, y.data());
            std::vector<double> ref(y.size());
            for (int t = 0; t < n; ++t)
                for (int r = 0; r < rows; ++r)
                    for (int c = 0; c < cols; ++c)
                        ref[size_t(t) * rows + r] += double(w[size_t(r) * cols + c]) * x[size_t(t) * cols + c];
            QVERIFY(max_abs_diff(y, ref) < 1e-4);
        }
    }

    // A product split by rows at whole token tiles gives the very same floats: the CPU
    // backend projects long prompts in slices to check for a cancel between them.
    void matmul_slices_are_exact()
    {
        std::mt19937 rng(std::random_device{}());
        const int rows = 96, cols = 256, n = 300, split = 256;
        const std::vector<float> x = random_vector(size_t(n) * cols, rng);
        for (const TensorType type : {TensorType::F32, TensorType::Q8_0, TensorType::Q4_K}) {
            std::vector<std::byte> data(tensor_row_bytes(type, cols) * rows);
            fill_synthetic_matrix(data.data(), type, rows, cols, rng());
            const WeightView view{"w", type, rows, cols, data.data()};
            std::vector<float> whole(size_t(n) * rows), sliced(whole.size());
            cpu::matmul(view, x.data(), n, whole.data());
            cpu::matmul(view, x.data(), split, sliced.data());
            cpu::matmul(view, x.data() + size_t(split) * cols, n - split, sliced.data() + size_t(split) * rows);
            QCOMPARE(sliced, whole);
        }
    }

    // Spread over a WorkerPool of any size, every kernel gives the floats it gives on the
    // calling thread alone, bit for bit: each output is one task's work, and a probe's columns
    // add up in slots that do not depend on the threads.
    void kernels_give_the_same_floats_on_any_number_of_threads()
    {
        std::mt19937 rng(std::random_device{}());
        WorkerPool two(2), three(3);
        const auto same_on_pools = [&](auto&& compute) {
            const std::vector<float> alone = compute(nullptr);
            return compute(&two) == alone && compute(&three) == alone;
        };
        const int rows = 200, cols = 256;
        for (const TensorType type : {TensorType::F32, TensorType::F16, TensorType::Q8_0, TensorType::Q4_K})
            for (const cpu::QuantizedDot dot : {cpu::QuantizedDot::Exact, cpu::QuantizedDot::Int8})
                for (const int n : {1, 5, 40}) {
                    std::vector<std::byte> a(tensor_row_bytes(type, cols) * rows), b(a.size());
                    fill_synthetic_matrix(a.data(), type, rows, cols, rng());
                    fill_synthetic_matrix(b.data(), type, rows, cols, rng());
                    const WeightView wa{"a", type, rows, cols, a.data()}, wb{"b", type, rows, cols, b.data()};
                    const std::vector<float> x = random_vector(size_t(n) * cols, rng);
                    cpu::KernelConfig config = cpu::best_kernel_config();
                    if (dot == cpu::QuantizedDot::Exact || cpu::runs_avx2(config.isa))
                        config.quantized_dot = dot;
                    QVERIFY(same_on_pools([&](WorkerPool* pool) {
                        std::vector<float> y(size_t(2 * n) * rows);
                        const cpu::MatmulOutput outputs[] = {{&wa, y.data()}, {&wb, y.data() + size_t(n) * rows}};
                        cpu::matmul_group(outputs, x.data(), n, config, pool);
                        return y;
                    }));
                }

        for (const bool per_kv_head : {false, true})
            for (auto [heads, kv_heads, hd, len, n_q] : {std::tuple{8, 2, 16, 150, 140}, {8, 4, 32, 300, 1}}) {
                const int qw = heads * hd, kw = kv_heads * hd;
                const auto q = random_vector(size_t(n_q) * qw, rng), k = random_vector(size_t(len) * kw, rng),
                           v = random_vector(size_t(len) * kw, rng);
                AttentionProbe probe;
                probe.per_kv_head = per_kv_head;
                probe.first_row = n_q / 3;
                for (int i = probe.first_row; i < n_q; ++i)
                    probe.row_weights.push_back(1.0f + 0.01f * i);
                QVERIFY(same_on_pools([&](WorkerPool* pool) {
                    std::vector<float> out(size_t(n_q) * qw), columns(size_t(len) * (per_kv_head ? kv_heads : 1));
                    cpu::attention(q.data(), n_q, k.data(), v.data(), len, {heads, kv_heads, hd}, out.data(), &probe,
                                   columns.data(), pool);
                    out.insert(out.end(), columns.begin(), columns.end());
                    return out;
                }));
            }

        const int n = 300, dim = 512;
        const std::vector<float> x = random_vector(size_t(n) * dim, rng), gains = random_vector(dim, rng);
        const WeightView gain{"norm", TensorType::F32, 1, dim, reinterpret_cast<const std::byte*>(gains.data())};
        std::vector<int32_t> positions(n);
        for (int t = 0; t < n; ++t)
            positions[size_t(t)] = 3 * t + 1;
        QVERIFY(same_on_pools([&](WorkerPool* pool) {
            std::vector<float> out(x.size());
            cpu::rms_norm(x.data(), gain, n, dim, 1e-5f, out.data(), pool);
            cpu::rope(out.data(), n, dim / 64, 64, positions, 10000.0f, RopeLayout::Interleaved, pool);
            std::vector<float> up = x;
            cpu::swiglu(out.data(), up.data(), static_cast<int64_t>(out.size()), cpu::best_kernel_config().isa, pool);
            return out;
        }));
    }

    // The CPU cache's rows grow by an eighth, not double, and give memory back once a policy
    // dropped most of them, keeping the right rows, in either precision.
    void row_buffer_keeps_its_slack_small()
    {
        check_row_buffer_slack<float>();
        check_row_buffer_slack<Half>();
    }

    // fp16 rows hold each float rounded to the nearest half, in half the bytes.
    void row_buffer_rounds_to_half()
    {
        std::mt19937 rng(std::random_device{}());
        const int width = 24, rows = 5;
        const std::vector<float> values = random_vector(size_t(rows) * width, rng, 3.0f);
        RowBuffer<Half> buffer(width);
        buffer.append(values.data(), rows);
        QCOMPARE(buffer.bytes(), values.size() * 2);
        for (size_t i = 0; i < values.size(); ++i) {
            const float stored = to_float(buffer.data()[i]);
            QCOMPARE(buffer.data()[i].bits, fp32_to_fp16(values[i]));
            QVERIFY(std::abs(stored - values[i]) <= std::abs(values[i]) * 0x1.0p-11f);
        }
    }

    // A step's rows go through a layer in slices: every row once, in order; a probed
    // sequence's probe rows together in its last piece; no slice longer than asked but for
    // such a piece; short sequences sharing slices.
    void layer_slices_keep_rows_in_order_and_probes_whole()
    {
        std::mt19937 rng(std::random_device{}());
        for (int trial = 0; trial < 200; ++trial) {
            const int slice_rows = 1 + int(rng() % 40);
            const int count = 1 + int(rng() % 6);
            std::vector<std::vector<int32_t>> positions(static_cast<size_t>(count));
            std::vector<AttentionProbe> probes(static_cast<size_t>(count));
            std::vector<SequenceRows> sequences(static_cast<size_t>(count));
            int next = 0;
            for (size_t i = 0; i < size_t(count); ++i) {
                positions[i].resize(rng() % 100);
                probes[i].first_row = int(rng() % (positions[i].size() + 1));
                sequences[i] = {next, positions[i], nullptr, rng() % 2 ? &probes[i] : nullptr, nullptr};
                next += int(positions[i].size());
            }
            int row = 0;
            std::vector<int> done(static_cast<size_t>(count), 0);  // rows of each sequence seen so far
            for (const LayerSlice& slice : layer_slices(sequences, slice_rows)) {
                QCOMPARE(slice.first_row, row);
                int rows = 0;
                for (const SequencePiece& p : slice.pieces) {
                    const SequenceRows& s = sequences[size_t(p.sequence)];
                    QCOMPARE(p.offset, done[size_t(p.sequence)]);
                    QCOMPARE(s.first_row + p.offset, row + rows);
                    QVERIFY(p.rows > 0);
                    done[size_t(p.sequence)] += p.rows;
                    rows += p.rows;
                    const bool probed = s.probe && p.offset + p.rows > s.probe->first_row;
                    if (probed)  // holds every probe row, to the sequence's end
                        QVERIFY(p.offset <= s.probe->first_row && done[size_t(p.sequence)] == int(s.positions.size()));
                    if (slice.rows > slice_rows)
                        QVERIFY(probed && slice.pieces.size() == 1);
                }
                QCOMPARE(rows, slice.rows);
                row += rows;
            }
            QCOMPARE(row, next);
            for (size_t i = 0; i < size_t(count); ++i)
                QCOMPARE(done[i], int(positions[i].size()));
        }
        // A decode step's single rows share one slice.
        std::vector<int32_t> one{7};
        std::vector<SequenceRows> decode;
        for (int i = 0; i < 8; ++i)
            decode.push_back({i, one, nullptr, nullptr, nullptr});
        QCOMPARE(layer_slices(decode, 256).size(), size_t(1));
    }

    void attention_and_probe()
    {
        std::mt19937 rng(std::random_device{}());
        for (auto [heads, kv_heads, hd, len, n_q] :
             {std::tuple{8, 4, 8, 37, 37}, {4, 1, 16, 50, 9}, {6, 6, 4, 13, 1}}) {
            const int qw = heads * hd, kw = kv_heads * hd;
            auto q = random_vector(size_t(n_q) * qw, rng), k = random_vector(size_t(len) * kw, rng),
                 v = random_vector(size_t(len) * kw, rng);
            AttentionProbe probe;
            probe.first_row = n_q / 3;
            for (int i = probe.first_row; i < n_q; ++i)
                probe.row_weights.push_back(1.0f + 0.1f * i);
            std::vector<float> out(size_t(n_q) * qw, NAN), probe_out(size_t(len), NAN);
            cpu::attention(q.data(), n_q, k.data(), v.data(), len, {heads, kv_heads, hd}, out.data(), &probe,
                           probe_out.data());

            std::vector<double> ref_out(out.size(), 0.0), ref_probe(size_t(len), 0.0);
            for (int i = 0; i < n_q; ++i)
                for (int h = 0; h < heads; ++h) {
                    const int g = h / (heads / kv_heads), visible = len - n_q + i + 1;
                    std::vector<double> s(static_cast<size_t>(visible));
                    double mx = -INFINITY, sum = 0;
                    for (int j = 0; j < visible; ++j) {
                        double d = 0;
                        for (int e = 0; e < hd; ++e)
                            d += double(q[size_t(i) * qw + h * hd + e]) * k[size_t(j) * kw + g * hd + e];
                        s[size_t(j)] = d / std::sqrt(double(hd));
                        mx = std::max(mx, s[size_t(j)]);
                    }
                    for (double& x : s)
                        sum += (x = std::exp(x - mx));
                    for (int j = 0; j < visible; ++j) {
                        const double p = s[size_t(j)] / sum;
                        for (int e = 0; e < hd; ++e)
                            ref_out[size_t(i) * qw + h * hd + e] += p * v[size_t(j) * kw + g * hd + e];
                        if (i >= probe.first_row)
                            ref_probe[size_t(j)] += probe.row_weights[size_t(i - probe.first_row)] * p / heads;
                    }
                }
            QVERIFY(max_abs_diff(out, ref_out) < 1e-5);
            QVERIFY(max_abs_diff(probe_out, ref_probe) < 1e-5);
        }
    }

    // Over an fp16 cache kept head by head attention converts each entry exactly and sums in the
    // same order: the very floats of float32 attention over the converted entries, packed,
    // probe scores included.
    void attention_over_fp16_entries_is_exact()
    {
        std::mt19937 rng(std::random_device{}());
        for (auto [heads, kv_heads, hd, len, n_q] : {std::tuple{8, 2, 12, 41, 41}, {4, 4, 20, 67, 1}}) {
            const int qw = heads * hd, kw = kv_heads * hd;
            const auto q = random_vector(size_t(n_q) * qw, rng);
            std::vector<Half> k(size_t(len) * kw), v(k.size());
            std::vector<float> k_float(k.size()), v_float(k.size());
            for (size_t i = 0; i < k.size(); ++i) {
                k[i] = to_half(random_vector(1, rng)[0]);
                v[i] = to_half(random_vector(1, rng)[0]);
                k_float[i] = to_float(k[i]);
                v_float[i] = to_float(v[i]);
            }
            AttentionProbe probe;
            probe.first_row = n_q / 2;
            probe.row_weights.assign(size_t(n_q - probe.first_row), 0.75f);
            std::vector<float> out(size_t(n_q) * qw, NAN), probe_out(size_t(len), NAN);
            std::vector<float> ref_out(out.size(), NAN), ref_probe(probe_out.size(), NAN);
            // Head by head, as the backend's cache keeps them (the float reference is packed).
            std::vector<std::vector<Half>> k_heads(static_cast<size_t>(kv_heads)), v_heads(k_heads);
            std::vector<const Half*> k_ptrs, v_ptrs;
            for (int g = 0; g < kv_heads; ++g) {
                for (int j = 0; j < len; ++j)
                    for (int d = 0; d < hd; ++d) {
                        k_heads[size_t(g)].push_back(k[size_t(j) * kw + g * hd + d]);
                        v_heads[size_t(g)].push_back(v[size_t(j) * kw + g * hd + d]);
                    }
                k_ptrs.push_back(k_heads[size_t(g)].data());
                v_ptrs.push_back(v_heads[size_t(g)].data());
            }
            cpu::attention(q.data(), n_q, cpu::CacheHeads<Half>{k_ptrs, hd}, cpu::CacheHeads<Half>{v_ptrs, hd}, len,
                           {heads, kv_heads, hd}, out.data(), &probe, probe_out.data());
            cpu::attention(q.data(), n_q, k_float.data(), v_float.data(), len, {heads, kv_heads, hd}, ref_out.data(),
                           &probe, ref_probe.data());
            QCOMPARE(out, ref_out);
            QCOMPARE(probe_out, ref_probe);
        }
    }

    // The AVX2 kernels over float32 and fp16 rows give the generic ones' floats, tails included.
    void avx2_row_kernels_agree()
    {
        if (!cpu::kernel_isa_supported(cpu::KernelIsa::Avx2))
            QSKIP("this CPU has no AVX2");
        check_row_kernels_agree<float>();
        check_row_kernels_agree<Half>();
    }

    // Several queries at once over every stored type, generic and AVX2, against one at a time.
    void query_row_kernels_agree()
    {
        std::vector<cpu::KernelIsa> isas{cpu::KernelIsa::Generic};
        if (cpu::kernel_isa_supported(cpu::KernelIsa::Avx2))
            isas.push_back(cpu::KernelIsa::Avx2);
        for (const cpu::KernelIsa isa : isas) {
            check_query_kernels_agree<float>(isa);
            check_query_kernels_agree<Half>(isa);
            check_query_kernels_agree<KvQ8Block>(isa);
            check_query_kernels_agree<KvQ4Block>(isa);
        }
    }

    void key_tile_dots_are_the_dots_of_the_rows()
    {
        if (!cpu::kernel_isa_supported(cpu::KernelIsa::Avx512Vnni))
            QSKIP("this CPU has no AVX-512 (the only kernel over key tiles)");
        check_key_tile_dots<float>();
        check_key_tile_dots<Half>();
        check_key_tile_dots<KvQ8Block>();
        check_key_tile_dots<KvQ4Block>();
    }

    // On AVX-512 a slice of 16 rows or more dots over key tiles, fewer over the rows as stored.
    void prompt_rows_get_their_floats_alone()
    {
        std::vector<cpu::KernelIsa> isas{cpu::KernelIsa::Generic};
        for (const cpu::KernelIsa isa : {cpu::KernelIsa::Avx2, cpu::KernelIsa::Avx512Vnni})
            if (cpu::kernel_isa_supported(isa))
                isas.push_back(isa);
        for (const cpu::KernelIsa isa : isas) {
            check_prompt_rows_as_alone<float, float>(isa);
            check_prompt_rows_as_alone<Half, Half>(isa);
            check_prompt_rows_as_alone<KvQ8Block, KvQ4Block>(isa);
            check_prompt_rows_as_alone<KvQ4Block, Half>(isa);
        }
    }

    void decode_heads_get_their_floats_alone()
    {
        std::vector<cpu::KernelIsa> isas{cpu::KernelIsa::Generic};
        for (const cpu::KernelIsa isa : {cpu::KernelIsa::Avx2, cpu::KernelIsa::Avx512Vnni})
            if (cpu::kernel_isa_supported(isa))
                isas.push_back(isa);
        for (const cpu::KernelIsa isa : isas) {
            check_decode_heads_as_alone<float, float>(isa);
            check_decode_heads_as_alone<Half, Half>(isa);
            check_decode_heads_as_alone<KvQ8Block, KvQ4Block>(isa);
            check_decode_heads_as_alone<KvQ4Block, Half>(isa);
        }
    }

    void rope_rotations_compose()  // what shift_key_positions relies on
    {
        std::mt19937 rng(std::random_device{}());
        for (RopeLayout layout : {RopeLayout::Interleaved, RopeLayout::RotateHalf}) {
            const int n = 4, heads = 2, hd = 16;
            const auto x = random_vector(size_t(n) * heads * hd, rng);
            std::vector<int32_t> pos = {5, 900, 4095, 17}, shift = {-5, -850, -4000, 3}, sum(4);
            for (int i = 0; i < n; ++i)
                sum[size_t(i)] = pos[size_t(i)] + shift[size_t(i)];
            std::vector<float> twice = x, once = x;
            cpu::rope(twice.data(), n, heads, hd, pos, 10000.0f, layout);
            cpu::rope(twice.data(), n, heads, hd, shift, 10000.0f, layout);
            cpu::rope(once.data(), n, heads, hd, sum, 10000.0f, layout);
            std::vector<double> reference(once.begin(), once.end());
            QVERIFY(max_abs_diff(twice, reference) < 1e-4);
        }
    }

    void rope_layouts_are_permutations_of_each_other()
    {
        std::mt19937 rng(std::random_device{}());
        const int n = 5, heads = 3, hd = 8;
        auto x = random_vector(size_t(n) * heads * hd, rng);
        std::vector<int32_t> pos = {0, 3, 7, 100, 2047};
        // Interleaved element 2i/2i+1 is rotate-half element i / i + hd/2.
        std::vector<float> half(x.size());
        for (int t = 0; t < n * heads; ++t)
            for (int i = 0; i < hd / 2; ++i) {
                half[size_t(t) * hd + i] = x[size_t(t) * hd + 2 * i];
                half[size_t(t) * hd + i + hd / 2] = x[size_t(t) * hd + 2 * i + 1];
            }
        cpu::rope(x.data(), n, heads, hd, pos, 10000.0f, RopeLayout::Interleaved);
        cpu::rope(half.data(), n, heads, hd, pos, 10000.0f, RopeLayout::RotateHalf);
        for (int t = 0; t < n * heads; ++t)
            for (int i = 0; i < hd / 2; ++i) {
                QCOMPARE(half[size_t(t) * hd + i], x[size_t(t) * hd + 2 * i]);
                QCOMPARE(half[size_t(t) * hd + i + hd / 2], x[size_t(t) * hd + 2 * i + 1]);
            }
        // Position 0 is the identity; position p rotates pair 0 by p radians.
        std::vector<float> y = {1, 0, 1, 0};
        cpu::rope(y.data(), 1, 1, 4, std::vector<int32_t>{2}, 10000.0f, RopeLayout::Interleaved);
        QVERIFY(std::abs(y[0] - std::cos(2.0f)) < 1e-6 && std::abs(y[1] - std::sin(2.0f)) < 1e-6);
    }
};

QTEST_APPLESS_MAIN(CpuKernelsTest)
#include "test_cpu_kernels.moc"
