#include "backend/cpu_kernels.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "backend/cache_rows.h"
#include "backend/float_dot.h"
#include "backend/int8_activations.h"
#include "backend/int8_matmul.h"
#include "backend/key_tiles.h"
#include "backend/quant_matmul.h"
#include "backend/vector_exp.h"

namespace pyramid::cpu {
namespace {

// Below this many multiply-adds spreading the work over threads costs more than it saves: run
// on the calling thread.
constexpr int64_t kParallelWork = int64_t(1) << 16;


// A float32 pointer to row r of w: the row itself for F32, else decoded into `scratch`.
const float* decoded_row(const WeightView& w, int64_t r, std::vector<float>& scratch)
{
    if (w.type == TensorType::F32)
        return reinterpret_cast<const float*>(w.row(r));
    scratch.resize(static_cast<size_t>(w.cols));
    tensor_type_traits(w.type).to_float(w.row(r), scratch.data(), w.cols);
    return scratch.data();
}

} // namespace

void matmul(const WeightView& w, const float* x, int n, float* y, const KernelConfig& config, WorkerPool* workers)
{
    const MatmulOutput output{&w, y};
    matmul_group({&output, 1}, x, n, config, workers);
}

void matmul_group(std::span<const MatmulOutput> outputs, const float* x, int n, const KernelConfig& config,
                  WorkerPool* workers)
{
    const auto int8 = [&](const MatmulOutput& o) {
        return config.quantized_dot == QuantizedDot::Int8 && int8_matmul_supported(o.w->type);
    };
    const size_t n_int8 = static_cast<size_t>(std::count_if(outputs.begin(), outputs.end(), int8));
    if (outputs.size() > kMaxMatmulGroup || (n_int8 != 0 && n_int8 != outputs.size())) {
        // More products than a group holds, or int8 and float32 ones mixed: one call each.
        for (const MatmulOutput& o : outputs)
            matmul_group({&o, 1}, x, n, config, workers);
        return;
    }
    // Rows in chunks, one chunk per task, numbered across the products: chunk c belongs to the
    // product whose range [first[i], first[i + 1]) holds it.
    constexpr int64_t kRowChunk = 16;
    std::array<int64_t, kMaxMatmulGroup + 1> first{};
    int64_t work = 0;
    for (size_t i = 0; i < outputs.size(); ++i) {
        first[i + 1] = first[i] + (outputs[i].w->rows + kRowChunk - 1) / kRowChunk;
        work += outputs[i].w->rows * outputs[i].w->cols * n;
    }
    const int64_t chunks = first[outputs.size()];
    const bool parallel = work >= kParallelWork;
    const auto run_chunk = [&](int64_t c, auto&& rows) {
        size_t i = 0;
        while (c >= first[i + 1])
            ++i;
        const WeightView& w = *outputs[i].w;
        const int64_t begin = (c - first[i]) * kRowChunk;
        rows(w, outputs[i].y, begin, std::min(w.rows, begin + kRowChunk));
    };
    if (n_int8 != 0) {
        thread_local Int8Activations buffer;  // reused from call to call
        Int8Activations* const a = &buffer;   // the calling thread's, shared with the team
        const auto lanes_pay = [&](const MatmulOutput& o) { return int8_token_lanes_pay(o.w->type, config.isa, n); };
        const bool lanes = std::any_of(outputs.begin(), outputs.end(), lanes_pay);
        // Rounded once for every product of the group.
        quantize_activations(x, n, outputs.front().w->cols, *a, lanes, config.isa, workers);
        // The int8 row kernels take tokens in tiles so a tile of x stays in cache while every
        // weight row passes over it; the lane kernels decode each row once for all the tokens.
        const int token_tile = lanes ? n : kMatmulTokenTile;
        const int64_t tiles = (n + token_tile - 1) / token_tile;
        // Tile by tile, each tile's chunks in order: a tile of x stays in cache while they run.
        run_tasks(workers, tiles * chunks, parallel, [&](int64_t task, int) {
            const int t0 = static_cast<int>(task / chunks) * token_tile;
            const int t1 = std::min(n, t0 + token_tile);
            run_chunk(task % chunks, [&](const WeightView& w, float* y, int64_t r0, int64_t r1) {
                matmul_rows_int8(w, *a, t0, t1, y, r0, r1, config.isa);
            });
        });
        return;
    }
    // Every token in each chunk's call: its rows are read (and decoded) once, not once per tile.
    run_tasks(workers, chunks, parallel, [&](int64_t c, int) {
        run_chunk(c, [&](const WeightView& w, float* y, int64_t r0, int64_t r1) {
            matmul_rows(w, x, n, y, r0, r1, config.isa);
        });
    });
}

void embed_rows(const WeightView& table, std::span<const int32_t> tokens, float* out)
{
    std::vector<float> scratch;
    for (size_t t = 0; t < tokens.size(); ++t) {
        const float* row = decoded_row(table, tokens[t], scratch);
        std::copy_n(row, table.cols, out + t * table.cols);
    }
}

void rms_norm(const float* x, const WeightView& weight, int n, int dim, float eps, float* out, WorkerPool* workers)
{
    const float* w = reinterpret_cast<const float*>(weight.data);
    run_tasks(workers, n, int64_t(n) * dim >= kParallelWork, [&](int64_t t, int) {
        const float* xt = x + static_cast<int64_t>(t) * dim;
        float* ot = out + static_cast<int64_t>(t) * dim;
        const float scale = 1.0f / std::sqrt(dot(xt, xt, dim) / static_cast<float>(dim) + eps);
        for (int i = 0; i < dim; ++i)
            ot[i] = xt[i] * scale * w[i];
    });
}

void rope(float* x, int n, int n_heads, int head_dim, std::span<const int32_t> positions, float theta,
          RopeLayout layout, WorkerPool* workers)
{
    const int half = head_dim / 2;
    // Pair i of a head is (i0, i1): adjacent elements in GGUF layout, halves in HF layout.
    const int stride_in_pair = layout == RopeLayout::Interleaved ? 1 : half;
    const int pair_step = layout == RopeLayout::Interleaved ? 2 : 1;
    run_tasks(workers, n, int64_t(n) * n_heads * head_dim >= kParallelWork, [&](int64_t t, int) {
        std::vector<float> cosines(half), sines(half);
        for (int i = 0; i < half; ++i) {
            const double freq = std::pow(static_cast<double>(theta), -2.0 * i / head_dim);
            const double angle = positions[t] * freq;
            cosines[i] = static_cast<float>(std::cos(angle));
            sines[i] = static_cast<float>(std::sin(angle));
        }
        for (int h = 0; h < n_heads; ++h) {
            float* head = x + (static_cast<int64_t>(t) * n_heads + h) * head_dim;
            for (int i = 0; i < half; ++i) {
                float& a = head[i * pair_step];
                float& b = head[i * pair_step + stride_in_pair];
                const float a0 = a, b0 = b;
                a = a0 * cosines[i] - b0 * sines[i];
                b = a0 * sines[i] + b0 * cosines[i];
            }
        }
    });
}

namespace {

// Query rows from which a slice prepares a KV head's entries once instead of reading them as
// stored in every row's dot and sum: its keys are laid out in tiles (key_tiles.h) where the CPU
// runs AVX-512, its quantized values (and keys, elsewhere) decoded to float32 (DecodedHead). Each
// row would decode every entry again (a slice over q8 took 1.8x fp16's time at 256 rows,
// docs/perf/cpu-kv-types.md), and a dot over stored rows spends a third of its time finishing
// its lanes. A decode step's one row reads the entries as stored, where reading fewer bytes is
// the gain.
constexpr int kPrepareOnceRows = 16;

// One KV head's rows decoded to float32, kept while a thread's work stays on that head. Over
// them the float32 kernels give the quantized kernels' very floats (cache_rows.h), so where a
// slice decodes changes no result.
class DecodedHead {
public:
    template <typename Stored>
    const float* rows(CacheHeads<Stored> heads, size_t g, int len, int head_dim)
    {
        if (head_ != g) {
            values_.resize(static_cast<size_t>(len) * head_dim);
            for (int j = 0; j < len; ++j)
                load_values(heads.heads[g] + j * heads.row_stride, head_dim,
                            values_.data() + static_cast<size_t>(j) * head_dim);
            head_ = g;
        }
        return values_.data();
    }

private:
    std::vector<float> values_;
    size_t head_ = SIZE_MAX;
};

template <typename Stored>
constexpr bool kBlocks = kValuesPerElement<Stored> > 1;

// Consecutive query rows of one head that attention takes together (attention_over's task):
// changing it would change the order probe columns add up in.
constexpr int kChunkRows = 4;

// Partial sums a probe's columns add up in (attention_over): at most this many threads work on
// a probed attention; fixed, so the sums do not depend on the thread count.
constexpr int64_t kProbeSlots = 16;

// The scores of m consecutive query rows (q_stride apart) of one head, into rows of p
// (p_stride apart): row r sees the first shared + r keys. The keys all rows see are dotted
// with the m queries together (each key read and decoded once for all), the rest row by row.
template <typename Stored>
void causal_dots(const RowKernels<Stored>& kernels, const float* q, int64_t q_stride, int m, const Stored* keys,
                 int64_t stride, int shared, int hd, float* p, int64_t p_stride)
{
    kernels.dot_queries(q, q_stride, m, keys, stride, shared, hd, p, p_stride);
    for (int r = 1; r < m; ++r)
        kernels.dot(q + r * q_stride, keys + shared * stride, stride, r, hd, p + r * p_stride + shared);
}

// The m rows' weighted sums of the values, into outputs out_stride apart, as causal_dots splits
// the rows: each output value still adds the entries in ascending order.
template <typename Stored>
void causal_sums(const RowKernels<Stored>& kernels, const float* p, int64_t p_stride, int m, const Stored* values,
                 int64_t stride, int shared, int hd, float* out, int64_t out_stride)
{
    kernels.accumulate_queries(p, p_stride, m, values, stride, shared, hd, out, out_stride);
    for (int r = 1; r < m; ++r)
        kernels.accumulate(p + r * p_stride + shared, values + shared * stride, stride, r, hd, out + r * out_stride);
}

// Scales n scores in place and returns the largest. Eight running maxima instead of one chain
// of compares: the largest score is the same value in any order (a zero's sign may differ,
// which exp(score - max) cannot see; NaN is skipped either way).
inline float scale_and_max(float* p, int n, float scale)
{
    for (int j = 0; j < n; ++j)
        p[j] *= scale;
    // Two vectors of four maxima (GCC's vector extension; the compiler left an array of them
    // scalar, and a vector of eight too, without AVX), compared as std::max compares,
    // lanes < x ? x : lanes, so a NaN score is skipped.
    using Lanes = float __attribute__((vector_size(4 * sizeof(float))));
    constexpr float kLowest = -std::numeric_limits<float>::infinity();
    Lanes low = {kLowest, kLowest, kLowest, kLowest}, high = low;
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        Lanes x, y;
        std::memcpy(&x, p + j, sizeof x);
        std::memcpy(&y, p + j + 4, sizeof y);
        low = low < x ? x : low;
        high = high < y ? y : high;
    }
    float max_score = kLowest;
    for (; j < n; ++j)
        max_score = std::max(max_score, p[j]);
    for (int k = 0; k < 4; ++k)
        max_score = std::max(max_score, std::max(low[k], high[k]));
    return max_score;
}

// Adds the first n values of M rows (`stride` apart) to sums[0..M), each row in index order:
// the rows' chains of dependent adds run side by side.
template <int M>
void add_rows(const float* p, int64_t stride, int n, float* sums)
{
    float s[M];
    std::copy_n(sums, M, s);
    for (int j = 0; j < n; ++j)
        for (int r = 0; r < M; ++r)
            s[r] += p[r * stride + j];
    std::copy_n(s, M, sums);
}

// Softmax of m rows of scores (p_stride apart; row r's first shared + r) scaled by `scale`:
// exp(score - max) (exp_in_place, `isa`'s), divided by the sum in index order (times its
// inverse). Each value takes the float operations it took row by row in one loop, but the exps
// are computed before the sum: kept in one loop, the running sum waited on every exp.
inline void softmax_rows(float* p, int64_t p_stride, int m, int shared, float scale, KernelIsa isa)
{
    for (int r = 0; r < m; ++r) {
        float* row = p + r * p_stride;
        const int n = shared + r;
        const float max_score = scale_and_max(row, n, scale);
        for (int j = 0; j < n; ++j)
            row[j] -= max_score;
        exp_in_place(row, n, isa);
    }
    float sums[kChunkRows] = {};
    switch (m) {
    case 4: add_rows<4>(p, p_stride, shared, sums); break;
    case 3: add_rows<3>(p, p_stride, shared, sums); break;
    case 2: add_rows<2>(p, p_stride, shared, sums); break;
    default: add_rows<1>(p, p_stride, shared, sums);
    }
    for (int r = 0; r < m; ++r) {
        float* row = p + r * p_stride;
        for (int j = shared; j < shared + r; ++j)
            sums[r] += row[j];
        const float inv_sum = 1.0f / sums[r];
        for (int j = 0; j < shared + r; ++j)
            row[j] *= inv_sum;
    }
}

// Keys one task of attend_one_row dots: enough that a task outweighs taking it.
constexpr int kOneRowKeysPerTask = 256;

// Columns of a probe one task of attend_one_row sums.
constexpr int kOneRowColumnsPerTask = 1024;

// The probe of a decode step's one row (attend_one_row), from every head's softmax (head h's at
// p + h * len): each column summed in the order attention_over's chunks and slots give a single
// row (consecutive heads kChunkRows a chunk, chunk c in slot c % slots, each slot's sum from
// zero, the slots added in order to zero), so the selection scores do not depend on which way
// the row went. probe_out arrives zeroed (attention_over zeroes every probe) and is left so
// for a row the probe does not read.
inline void one_row_probe(const float* p, int len, const AttentionShape& shape, const AttentionProbe& probe,
                          float* probe_out, WorkerPool* workers)
{
    const int group = shape.n_heads / shape.n_kv_heads;
    const int lists = probe.per_kv_head ? shape.n_kv_heads : 1;
    if (probe.first_row > 0)  // the row is not probed
        return;
    const float weight = probe.row_weights[0] / (probe.per_kv_head ? 1.0f : static_cast<float>(shape.n_heads));
    const int64_t chunks = (shape.n_heads + kChunkRows - 1) / kChunkRows;
    const int64_t slots = std::min<int64_t>(kProbeSlots, chunks);
    const int64_t column_parts = (len + kOneRowColumnsPerTask - 1) / kOneRowColumnsPerTask;
    run_tasks(workers, lists * column_parts, workers != nullptr, [&](int64_t task, int) {
        const int list = static_cast<int>(task / column_parts);
        const int j0 = static_cast<int>(task % column_parts) * kOneRowColumnsPerTask;
        const int n = std::min(kOneRowColumnsPerTask, len - j0);
        float* columns = probe_out + static_cast<int64_t>(list) * len + j0;
        float partial[kOneRowColumnsPerTask];
        for (int64_t slot = 0; slot < slots; ++slot) {
            std::fill_n(partial, n, 0.0f);
            for (int64_t chunk = slot; chunk < chunks; chunk += slots)
                for (int h = static_cast<int>(chunk * kChunkRows);
                     h < std::min<int64_t>(shape.n_heads, (chunk + 1) * kChunkRows); ++h)
                    if (!probe.per_kv_head || h / group == list)
                        for (int j = 0; j < n; ++j)
                            partial[j] += weight * p[static_cast<int64_t>(h) * len + j0 + j];
            for (int j = 0; j < n; ++j)
                columns[j] += partial[j];
        }
    });
}

// A decode step's one row in a model whose KV heads serve groups of query heads, in passes of
// tasks small enough to keep every thread busy however few KV heads a model has (SmolLM2's
// three gave two threads one and two heads' work): the dots of a KV head's query heads with a
// range of its keys, each key read and converted once for the group; each head's softmax; the
// probe's columns, where there is one; a KV head's query heads' weighted sums over a range of
// the values' dimensions, each value read and converted once for the group. Every dot, softmax
// and sum is whole and in its own order, so each head gets the floats it gets alone, and the
// probe those of the chunks (one_row_probe). Without groups (one query head a KV head, as in
// LLaMA-2) the chunks of heads share no entry and keep every thread busy: they stay.
template <typename KStored, typename VStored>
void attend_one_row(const float* q, CacheHeads<KStored> k, CacheHeads<VStored> v, int len, const AttentionShape& shape,
                    float* out, const AttentionProbe* probe, float* probe_out, const RowKernels<KStored>& key_rows,
                    const RowKernels<VStored>& value_rows, KernelIsa isa, WorkerPool* workers)
{
    const int hd = shape.head_dim;
    const int group = shape.n_heads / shape.n_kv_heads;
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    const bool parallel = workers != nullptr;
    // Head h's scores at h * len; every one written before it is read.
    const auto p = std::make_unique_for_overwrite<float[]>(static_cast<size_t>(shape.n_heads) * len);
    const int64_t key_parts = (len + kOneRowKeysPerTask - 1) / kOneRowKeysPerTask;
    run_tasks(workers, shape.n_kv_heads * key_parts, parallel, [&](int64_t task, int) {
        const int64_t g = task / key_parts;
        const int j0 = static_cast<int>(task % key_parts) * kOneRowKeysPerTask;
        key_rows.dot_queries(q + g * group * hd, hd, group, k.heads[g] + j0 * k.row_stride, k.row_stride,
                             std::min(kOneRowKeysPerTask, len - j0), hd, p.get() + g * group * len + j0, len);
    });
    run_tasks(workers, shape.n_heads, parallel,
              [&](int64_t h, int) { softmax_rows(p.get() + h * len, len, 1, len, scale, isa); });
    if (probe)
        one_row_probe(p.get(), len, shape, *probe, probe_out, workers);
    // Too few KV heads for the threads (SmolLM2's three for two) split their values' dimensions
    // in halves down to 32 (whole blocks of a quantized row, whole vectors of the kernels); a
    // range costs a pass over the weights, and rows read in pieces, so no more than that.
    constexpr int kLeastDims = 32;
    int dim_parts = 1;
    while (shape.n_kv_heads * dim_parts < 2 * worker_count(workers) && hd % (2 * dim_parts * kLeastDims) == 0 &&
           kLeastDims % kValuesPerElement<VStored> == 0)
        dim_parts *= 2;
    const int dims = hd / dim_parts;
    std::fill_n(out, shape.n_heads * hd, 0.0f);
    run_tasks(workers, shape.n_kv_heads * dim_parts, parallel, [&](int64_t task, int) {
        const int64_t g = task / dim_parts;
        const int d0 = static_cast<int>(task % dim_parts) * dims;
        value_rows.accumulate_queries(p.get() + g * group * len, len, group,
                                      v.heads[g] + d0 / kValuesPerElement<VStored>, v.row_stride, len, dims,
                                      out + g * group * hd + d0, hd);
    });
}

template <typename KStored, typename VStored>
void attention_over(const float* q, int n_q, CacheHeads<KStored> k, CacheHeads<VStored> v, int len,
                    const AttentionShape& shape, float* out, const AttentionProbe* probe, float* probe_out,
                    const RowKernels<KStored>& key_rows, const RowKernels<VStored>& value_rows,
                    const RowKernels<float>& float_rows, KernelIsa isa, WorkerPool* workers)
{
    const int hd = shape.head_dim;
    const int q_width = shape.n_heads * hd;
    const int group = shape.n_heads / shape.n_kv_heads;
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    const int first_visible = len - n_q;  // row i sees entries [0, first_visible + i]
    const int64_t work = static_cast<int64_t>(n_q) * shape.n_heads;

    // A per-KV-head probe sums its group's query heads into the group's own list.
    const int64_t probe_len = probe && probe->per_kv_head ? static_cast<int64_t>(shape.n_kv_heads) * len : len;
    const float heads_averaged = probe && probe->per_kv_head ? 1.0f : static_cast<float>(shape.n_heads);
    if (probe)
        std::fill_n(probe_out, probe_len, 0.0f);
    const bool parallel = work * len * hd >= kParallelWork;
    if (n_q == 1 && group > 1) {
        attend_one_row(q, k, v, len, shape, out, probe, probe_out, key_rows, value_rows, isa,
                       parallel ? workers : nullptr);
        return;
    }
    const int64_t chunks = (work + kChunkRows - 1) / kChunkRows;
    struct Scratch {
        std::vector<float> p;  // a chunk's rows of scores, p_stride apart
        KeyTiles key_tiles;
        DecodedHead keys, values;
    };
    std::vector<Scratch> scratch(static_cast<size_t>(worker_count(workers)));
    const bool prepare_once = n_q >= kPrepareOnceRows;
    const bool tiled_keys = prepare_once && isa == KernelIsa::Avx512Vnni;
    // Room for the dots with a whole last tile of keys, which rows past their entries ignore.
    const int p_stride = (len + KeyTiles::kWidth - 1) / KeyTiles::kWidth * KeyTiles::kWidth;
    // Items go head by head: a chunk is consecutive query rows of one head, which read the same
    // entries while they are in cache, and go through the kernels together, each entry read and
    // converted once for all of them.
    const auto run_chunk = [&](int64_t chunk, Scratch& s, float* partial) {
        std::vector<float>& p = s.p;
        p.resize(static_cast<size_t>(kChunkRows) * p_stride);
        const int64_t chunk_end = std::min(work, (chunk + 1) * kChunkRows);
        for (int64_t item = chunk * kChunkRows; item < chunk_end;) {
            const int h = static_cast<int>(item / n_q);
            const int i0 = static_cast<int>(item % n_q);
            const int m = static_cast<int>(std::min<int64_t>(chunk_end - item, n_q - i0));  // rows i0 to i0 + m - 1
            item += m;
            const int shared = first_visible + i0 + 1;  // entries row i0 + r sees: shared + r
            const float* qh = q + static_cast<int64_t>(i0) * q_width + h * hd;
            float* oh = out + static_cast<int64_t>(i0) * q_width + h * hd;
            const size_t g = static_cast<size_t>(h / group);

            const float* keys = nullptr;  // the head's keys decoded, where a slice without tiles does so
            if constexpr (kBlocks<KStored>)
                keys = prepare_once && !tiled_keys ? s.keys.rows(k, g, len, hd) : nullptr;
            if (tiled_keys) {  // row i0 + r sees shared + r entries
                s.key_tiles.lay_out(k.heads[g], k.row_stride, len, hd, isa);
                key_tile_dots(s.key_tiles, qh, q_width, m, shared + m - 1, p.data(), p_stride, isa);
            } else if (keys) {
                causal_dots(float_rows, qh, q_width, m, keys, hd, shared, hd, p.data(), p_stride);
            } else {
                causal_dots(key_rows, qh, q_width, m, k.heads[g], k.row_stride, shared, hd, p.data(), p_stride);
            }
            softmax_rows(p.data(), p_stride, m, shared, scale, isa);
            for (int r = 0; r < m; ++r)
                std::fill_n(oh + r * q_width, hd, 0.0f);
            const float* values = nullptr;
            if constexpr (kBlocks<VStored>)
                values = prepare_once ? s.values.rows(v, g, len, hd) : nullptr;
            if (values)
                causal_sums(float_rows, p.data(), p_stride, m, values, hd, shared, hd, oh, q_width);
            else
                causal_sums(value_rows, p.data(), p_stride, m, v.heads[g], v.row_stride, shared, hd, oh, q_width);
            for (int r = 0; partial && r < m; ++r) {
                const int i = i0 + r;
                if (i >= probe->first_row) {
                    const float weight = probe->row_weights[i - probe->first_row] / heads_averaged;
                    float* columns = probe->per_kv_head ? partial + g * static_cast<size_t>(len) : partial;
                    for (int j = 0; j < shared + r; ++j)
                        columns[j] += weight * p[r * p_stride + j];
                }
            }
        }
    };
    if (!probe) {
        run_tasks(workers, chunks, parallel,
                  [&](int64_t chunk, int worker) { run_chunk(chunk, scratch[static_cast<size_t>(worker)], nullptr); });
        return;
    }
    // Probe columns add up in slots, then the slots in order: slot s takes chunks s, s + slots,
    // ... in that order (dealt round-robin, so causal rows' lengths even out), whichever thread
    // runs it. The same prompt gets the same selection scores, bit for bit, on any number of
    // threads, and memory is slots x len, never n x len.
    const int64_t slots = std::min<int64_t>(kProbeSlots, chunks);
    std::vector<float> partials(static_cast<size_t>(slots * probe_len), 0.0f);
    // A chunk without a row the probe reads adds nothing to a slot: those run first, as without
    // a probe, in head order, so that a thread prepares each head's entries once rather than once
    // per slot (the slots' chunks sweep every head). The slots then take the others, each in
    // its order, so that every column's sum is what it was.
    std::vector<int64_t> plain;
    std::vector<char> probed(static_cast<size_t>(chunks), 0);
    for (int64_t chunk = 0; chunk < chunks; ++chunk) {
        for (int64_t item = chunk * kChunkRows; item < std::min(work, (chunk + 1) * kChunkRows); ++item)
            probed[static_cast<size_t>(chunk)] |= item % n_q >= probe->first_row;
        if (!probed[static_cast<size_t>(chunk)])
            plain.push_back(chunk);
    }
    run_tasks(workers, static_cast<int64_t>(plain.size()), parallel, [&](int64_t i, int worker) {
        run_chunk(plain[static_cast<size_t>(i)], scratch[static_cast<size_t>(worker)], nullptr);
    });
    run_tasks(workers, slots, parallel, [&](int64_t slot, int worker) {
        for (int64_t chunk = slot; chunk < chunks; chunk += slots)
            if (probed[static_cast<size_t>(chunk)])
                run_chunk(chunk, scratch[static_cast<size_t>(worker)],
                          partials.data() + static_cast<size_t>(slot * probe_len));
    });
    for (int64_t slot = 0; slot < slots; ++slot)
        add_in_place(probe_out, partials.data() + static_cast<size_t>(slot * probe_len), probe_len);
}

} // namespace

void attention(const float* q, int n_q, const float* k, const float* v, int len, const AttentionShape& shape,
               float* out, const AttentionProbe* probe, float* probe_out, WorkerPool* workers)
{
    std::vector<const float*> k_heads, v_heads;
    for (int g = 0; g < shape.n_kv_heads; ++g) {
        k_heads.push_back(k + static_cast<ptrdiff_t>(g) * shape.head_dim);
        v_heads.push_back(v + static_cast<ptrdiff_t>(g) * shape.head_dim);
    }
    const int64_t stride = static_cast<int64_t>(shape.n_kv_heads) * shape.head_dim;
    attention(q, n_q, CacheHeads<float>{k_heads, stride}, CacheHeads<float>{v_heads, stride}, len, shape, out, probe,
              probe_out, best_kernel_config().isa, workers);
}

template <typename KStored, typename VStored>
void attention(const float* q, int n_q, CacheHeads<KStored> k, CacheHeads<VStored> v, int len,
               const AttentionShape& shape, float* out, const AttentionProbe* probe, float* probe_out, KernelIsa isa,
               WorkerPool* workers)
{
    attention_over(q, n_q, k, v, len, shape, out, probe, probe_out, row_kernels<KStored>(isa),
                   row_kernels<VStored>(isa), row_kernels<float>(isa), isa, workers);
}

// Every pairing of the stored types: keys and values are set apart (kv_precision.h).
#define PYRAMID_ATTENTION_OVER(K, V)                                                                           \
    template void attention(const float*, int, CacheHeads<K>, CacheHeads<V>, int, const AttentionShape&, float*, \
                            const AttentionProbe*, float*, KernelIsa, WorkerPool*);
#define PYRAMID_ATTENTION_WITH_KEYS(K)                                                                          \
    PYRAMID_ATTENTION_OVER(K, float)                                                                            \
    PYRAMID_ATTENTION_OVER(K, Half)                                                                             \
    PYRAMID_ATTENTION_OVER(K, KvQ8Block)                                                                        \
    PYRAMID_ATTENTION_OVER(K, KvQ4Block)
PYRAMID_ATTENTION_WITH_KEYS(float)
PYRAMID_ATTENTION_WITH_KEYS(Half)
PYRAMID_ATTENTION_WITH_KEYS(KvQ8Block)
PYRAMID_ATTENTION_WITH_KEYS(KvQ4Block)
#undef PYRAMID_ATTENTION_WITH_KEYS
#undef PYRAMID_ATTENTION_OVER

void swiglu(float* gate, const float* up, int64_t count, KernelIsa isa, WorkerPool* workers)
{
    constexpr int64_t kValuesPerTask = 4096;
    constexpr int64_t kPiece = 256;  // e^-gate of a piece at a time, in a buffer on the stack
    const int64_t tasks = (count + kValuesPerTask - 1) / kValuesPerTask;
    run_tasks(workers, tasks, count >= kParallelWork, [&](int64_t task, int) {
        const int64_t end = std::min(count, (task + 1) * kValuesPerTask);
        float e[kPiece];
        for (int64_t i0 = task * kValuesPerTask; i0 < end; i0 += kPiece) {
            const int64_t n = std::min(kPiece, end - i0);
            for (int64_t i = 0; i < n; ++i)
                e[i] = -gate[i0 + i];
            exp_in_place(e, n, isa);
#pragma omp simd
            for (int64_t i = 0; i < n; ++i)
                gate[i0 + i] = gate[i0 + i] / (1.0f + e[i]) * up[i0 + i];
        }
    });
}

void add_in_place(float* y, const float* x, int64_t count)
{
#pragma omp simd
    for (int64_t i = 0; i < count; ++i)
        y[i] += x[i];
}

} // namespace pyramid::cpu
