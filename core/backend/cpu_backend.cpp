#include "backend/cpu_backend.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <optional>
#include <type_traits>

#include "backend/cpu_cores.h"
#include "backend/cpu_kernels.h"
#include "backend/kv_entry_types.h"
#include "backend/layer_slices.h"
#include "backend/quant_matmul.h"
#include "backend/row_buffer.h"
#include "util/error.h"
#include "util/float16.h"

namespace pyramid {
namespace {

class CpuHiddenStates final : public HiddenStates {
public:
    CpuHiddenStates(int rows, int dim) : dim(dim), values(static_cast<size_t>(rows) * dim) {}
    int rows() const override { return static_cast<int>(values.size() / dim); }

    int dim;
    std::vector<float> values;
};

// A layer's cache as the CPU stores it, whatever the precision.
class CpuKvLayerStore : public KvLayerStore {
public:
    virtual void append(const float* keys, const float* values, int rows) = 0;
    // cpu::attention of n_q new rows, the last n_q entries, against the whole layer, with the
    // row kernels of `isa` (the backend's KernelConfig).
    virtual void attend(const float* q, int n_q, const cpu::AttentionShape& shape, float* out,
                        const AttentionProbe* probe, float* probe_out, cpu::KernelIsa isa,
                        WorkerPool& workers) const = 0;
    // Rotates each key by its own shift (Backend::shift_key_positions).
    virtual void rotate_keys(const ModelConfig& c, std::span<const int32_t> shifts, WorkerPool& workers) = 0;
};

// K, V: the stored types of keys and of values (kv_entry_types.h). Kept head by head
// (cpu::CacheHeads): attention scans one head's entries at a time, which then lie in order in
// memory.
template <typename K, typename V>
class StoredKvLayer final : public CpuKvLayerStore {
public:
    StoredKvLayer(int n_kv_heads, int head_dim, KvBlockAllocator& blocks)
        : blocks_(blocks), head_dim_(head_dim),
          keys_(static_cast<size_t>(n_kv_heads), RowBuffer<K>(head_dim / kValuesPerElement<K>)),
          values_(static_cast<size_t>(n_kv_heads), RowBuffer<V>(head_dim / kValuesPerElement<V>))
    {
    }
    ~StoredKvLayer() override { blocks_.release(blocks_held_); }
    StoredKvLayer(const StoredKvLayer&) = delete;
    StoredKvLayer& operator=(const StoredKvLayer&) = delete;

    int size() const override { return keys_.front().rows(); }
    void keep(std::span<const int> indices) override
    {
        const int before = size();
        for (size_t g = 0; g < keys_.size(); ++g) {
            keys_[g].keep(indices);
            values_[g].keep(indices);
        }
        release_compacted(before);
    }
    void keep_per_head(std::span<const std::vector<int>> per_head) override
    {
        if (per_head.size() != keys_.size())
            throw Error("keep_per_head: " + std::to_string(per_head.size()) + " index lists for " +
                        std::to_string(keys_.size()) + " KV heads");
        for (const std::vector<int>& indices : per_head)
            if (indices.size() != per_head.front().size())
                throw Error("keep_per_head: the KV heads of a layer must keep the same number of entries (" +
                            std::to_string(per_head.front().size()) + " and " + std::to_string(indices.size()) +
                            ")");
        const int before = size();
        for (size_t g = 0; g < keys_.size(); ++g) {
            keys_[g].keep(per_head[g]);
            values_[g].keep(per_head[g]);
        }
        release_compacted(before);
    }
    void release_unused() override
    {
        const size_t needed = blocks_.blocks_for(size());
        blocks_.release(blocks_held_ - needed);
        blocks_held_ = needed;
    }
    void reserve(int more) override
    {
        const size_t needed = blocks_.blocks_for(size() + more);
        if (needed > blocks_held_) {
            blocks_.acquire(needed - blocks_held_);
            blocks_held_ = needed;
        }
    }
    size_t bytes() const override { return keys_.size() * (keys_.front().bytes() + values_.front().bytes()); }

    void append(const float* keys, const float* values, int rows) override
    {
        reserve(rows);
        const int64_t width = static_cast<int64_t>(keys_.size()) * head_dim_;
        for (int r = 0; r < rows; ++r)
            for (size_t g = 0; g < keys_.size(); ++g) {
                keys_[g].append(keys + r * width + static_cast<int64_t>(g) * head_dim_, 1);
                values_[g].append(values + r * width + static_cast<int64_t>(g) * head_dim_, 1);
            }
    }
    void attend(const float* q, int n_q, const cpu::AttentionShape& shape, float* out, const AttentionProbe* probe,
                float* probe_out, cpu::KernelIsa isa, WorkerPool& workers) const override
    {
        std::vector<const K*> k;
        std::vector<const V*> v;
        for (size_t g = 0; g < keys_.size(); ++g) {
            k.push_back(keys_[g].data());
            v.push_back(values_[g].data());
        }
        cpu::attention(q, n_q, cpu::CacheHeads<K>{k, head_dim_ / kValuesPerElement<K>},
                       cpu::CacheHeads<V>{v, head_dim_ / kValuesPerElement<V>}, size(), shape, out, probe, probe_out,
                       isa, &workers);
    }
    // fp16 and quantized keys are decoded, rotated and stored again: a quantized key gets the
    // scales of its rotated values. `shifts`: size() for every head, or size() per head.
    void rotate_keys(const ModelConfig& c, std::span<const int32_t> all_shifts, WorkerPool& workers) override
    {
        const bool per_head = all_shifts.size() != static_cast<size_t>(size());
        for (size_t g = 0; g < keys_.size(); ++g) {
            RowBuffer<K>& head = keys_[g];
            const auto shifts = per_head ? all_shifts.subspan(g * static_cast<size_t>(size()), static_cast<size_t>(size()))
                                         : all_shifts;
            if constexpr (std::is_same_v<K, float>) {
                cpu::rope(head.data(), size(), 1, c.head_dim, shifts, c.rope_theta, c.rope_layout, &workers);
            } else {
                const int64_t count = static_cast<int64_t>(size()) * c.head_dim;
                std::vector<float> keys(static_cast<size_t>(count));
                load_values(head.data(), count, keys.data());
                cpu::rope(keys.data(), size(), 1, c.head_dim, shifts, c.rope_theta, c.rope_layout, &workers);
                store_values(keys.data(), count, head.data());
            }
        }
    }

private:
    // The blocks a compaction from `before` entries emptied go back at once.
    void release_compacted(int before)
    {
        const size_t needed = blocks_.blocks_for(size());
        blocks_.release_compacted(static_cast<size_t>(before - size()), blocks_held_ - std::min(needed, blocks_held_));
        blocks_held_ = std::min(needed, blocks_held_);
    }

    KvBlockAllocator& blocks_;
    size_t blocks_held_ = 0;
    int head_dim_;
    std::vector<RowBuffer<K>> keys_;  // one per KV head
    std::vector<RowBuffer<V>> values_;
};

template <typename K>
std::unique_ptr<KvLayerStore> layer_with_keys(KvPrecision values, int n_kv_heads, int head_dim,
                                              KvBlockAllocator& blocks)
{
    switch (values) {
    case KvPrecision::F32: return std::make_unique<StoredKvLayer<K, float>>(n_kv_heads, head_dim, blocks);
    case KvPrecision::F16: return std::make_unique<StoredKvLayer<K, Half>>(n_kv_heads, head_dim, blocks);
    case KvPrecision::Q8: return std::make_unique<StoredKvLayer<K, KvQ8Block>>(n_kv_heads, head_dim, blocks);
    case KvPrecision::Q4: return std::make_unique<StoredKvLayer<K, KvQ4Block>>(n_kv_heads, head_dim, blocks);
    }
    throw Error("unknown KV value type");
}

std::unique_ptr<KvLayerStore> kv_layer(const KvTypes& types, int n_kv_heads, int head_dim, KvBlockAllocator& blocks)
{
    switch (types.k) {
    case KvPrecision::F32: return layer_with_keys<float>(types.v, n_kv_heads, head_dim, blocks);
    case KvPrecision::F16: return layer_with_keys<Half>(types.v, n_kv_heads, head_dim, blocks);
    case KvPrecision::Q8: return layer_with_keys<KvQ8Block>(types.v, n_kv_heads, head_dim, blocks);
    case KvPrecision::Q4: return layer_with_keys<KvQ4Block>(types.v, n_kv_heads, head_dim, blocks);
    }
    throw Error("unknown KV key type");
}

// Rows a projection or the feed-forward block takes at a time: whole token tiles, so slicing
// changes no result.
constexpr int kFeedForwardRows = 16 * cpu::kMatmulTokenTile;

CpuHiddenStates& cpu_states(HiddenStates& h) { return static_cast<CpuHiddenStates&>(h); }
const CpuHiddenStates& cpu_states(const HiddenStates& h) { return static_cast<const CpuHiddenStates&>(h); }

} // namespace

namespace {

KvBlockAllocator cpu_kv_blocks(const ModelConfig& c, const KvTypes& types, const CpuKvMemory& memory)
{
    const size_t block_bytes =
        pyramid::kv_entry_bytes(types, c.n_kv_heads, c.head_dim) * static_cast<size_t>(std::max(memory.block_entries, 1));
    const size_t capacity = memory.capacity_bytes / block_bytes;
    if (memory.capacity_bytes != 0 && capacity == 0)
        throw Error("a KV capacity of " + std::to_string(memory.capacity_bytes) + " bytes holds no block of " +
                    std::to_string(block_bytes) + " bytes");
    return KvBlockAllocator(memory.block_entries, block_bytes, capacity);
}

} // namespace

CpuBackend::CpuBackend(const ModelWeights& weights, KvTypes kv_types, const cpu::KernelConfig& kernels, int slice_rows,
                       const CpuKvMemory& kv_memory, int threads)
    : weights_(weights), kv_types_(kv_types), kernels_(kernels),
      kv_blocks_(cpu_kv_blocks(weights.config, kv_types, kv_memory)),
      workers_(cpu_threads_or_default(threads)), slice_rows_(slice_rows)
{
    for (KvPrecision type : {kv_types.k, kv_types.v})
        if (!kv_values_fit(type, weights.config.head_dim))
            throw Error(std::string("a ") + kv_precision_name(type) + " KV cache needs heads of a multiple of " +
                        std::to_string(kKvBlockValues) + " values; this model's have " +
                        std::to_string(weights.config.head_dim) + " (use f16 or f32)");
    // Weights generated off the host (model/synthetic_weights.h) have views without data.
    for (const WeightView* v : stored_views(weights))
        if (!v->data)
            throw Error("weight " + v->name + " has no data on the host: " +
                        (weights.synthetic ? "generated weights must be made on the host for the CPU backend"
                                           : "it was never loaded"));
}

BackendInfo CpuBackend::info() const
{
    std::string device = std::to_string(workers_.threads()) + " threads, ";
    return {"cpu", device + kv_types_name(kv_types_) + " KV cache", std::nullopt};
}

std::unique_ptr<HiddenStates> CpuBackend::embed(std::span<const int32_t> tokens)
{
    const ModelConfig& c = config();
    for (int32_t t : tokens)
        if (t < 0 || t >= c.n_vocab)
            throw Error("token id " + std::to_string(t) + " is outside the vocabulary (size " +
                        std::to_string(c.n_vocab) + ")");
    auto h = std::make_unique<CpuHiddenStates>(static_cast<int>(tokens.size()), c.dim);
    cpu::embed_rows(weights_.token_embedding, tokens, h->values.data());
    return h;
}

std::unique_ptr<KvLayerStore> CpuBackend::new_kv_layer()
{
    return kv_layer(kv_types_, config().n_kv_heads, config().head_dim, kv_blocks_);
}

void CpuBackend::run_layer_batch(int layer, HiddenStates& hidden, std::span<const SequenceRows> sequences)
{
    const ModelConfig& c = config();
    if (layer < 0 || layer >= c.n_layers)
        throw Error("layer " + std::to_string(layer) + " does not exist (the model has " +
                    std::to_string(c.n_layers) + ")");
    auto& h = cpu_states(hidden);
    check_sequence_rows(h.rows(), sequences);
    for (const SequenceRows& s : sequences)  // no rows, no slice: its scores are all zero
        if (s.probe && s.positions.empty())
            s.probe_out->assign(static_cast<size_t>(s.cache->size()) * (s.probe->per_kv_head ? c.n_kv_heads : 1),
                                0.0f);
    for (const LayerSlice& slice : layer_slices(sequences, slice_rows_)) {
        check_cancel();
        run_layer_slice(weights_.layers[static_cast<size_t>(layer)], h.values.data(), sequences, slice);
    }
}

void CpuBackend::run_layer_slice(const LayerWeights& w, float* hidden, std::span<const SequenceRows> sequences,
                                 const LayerSlice& slice)
{
    const ModelConfig& c = config();
    const int n = slice.rows;
    float* h = hidden + static_cast<size_t>(slice.first_row) * c.dim;
    const int q_width = c.n_heads * c.head_dim;
    const int kv_width = c.kv_dim();

    // Projections run over the rows of every sequence in the slice at once; only attention is
    // per sequence.
    const auto sized = [](std::vector<float>& buffer, size_t values) {
        if (buffer.size() < values)
            buffer.resize(values);
        return buffer.data();
    };
    SliceBuffers& b = slice_buffers_;
    float* const x = sized(b.x, static_cast<size_t>(n) * c.dim);
    cpu::rms_norm(h, w.attn_norm, n, c.dim, c.rms_eps, x, &workers_);
    float* const q = sized(b.q, static_cast<size_t>(n) * q_width);
    float* const k = sized(b.k, static_cast<size_t>(n) * kv_width);
    float* const v = sized(b.v, static_cast<size_t>(n) * kv_width);
    const cpu::MatmulOutput qkv[] = {{&w.wq, q}, {&w.wk, k}, {&w.wv, v}};
    project(qkv, x, n);

    float* const attended = sized(b.attended, static_cast<size_t>(n) * q_width);
    int row = 0;  // the piece's first row in the slice
    for (const SequencePiece& piece : slice.pieces) {
        const SequenceRows& s = sequences[static_cast<size_t>(piece.sequence)];
        const auto positions = s.positions.subspan(static_cast<size_t>(piece.offset), static_cast<size_t>(piece.rows));
        float* pq = q + static_cast<size_t>(row) * q_width;
        const size_t kv_offset = static_cast<size_t>(row) * kv_width;
        auto& kv = static_cast<CpuKvLayerStore&>(*s.cache);
        cpu::rope(pq, piece.rows, c.n_heads, c.head_dim, positions, c.rope_theta, c.rope_layout, &workers_);
        cpu::rope(k + kv_offset, piece.rows, c.n_kv_heads, c.head_dim, positions, c.rope_theta, c.rope_layout,
                  &workers_);
        kv.append(k + kv_offset, v + kv_offset, piece.rows);

        check_cancel();
        // Only a sequence's last piece holds probe rows (layer_slices.h); its rows count from
        // the piece's start.
        std::optional<AttentionProbe> probe;
        if (s.probe && piece.offset + piece.rows == static_cast<int>(s.positions.size())) {
            probe = *s.probe;
            probe->first_row -= piece.offset;
            s.probe_out->assign(static_cast<size_t>(kv.size()) * (probe->per_kv_head ? c.n_kv_heads : 1), 0.0f);
        }
        float* out = attended + static_cast<size_t>(row) * q_width;
        kv.attend(pq, piece.rows, {c.n_heads, c.n_kv_heads, c.head_dim}, out, probe ? &*probe : nullptr,
                  probe ? s.probe_out->data() : nullptr, kernels_.isa, workers_);
        row += piece.rows;
    }

    const int64_t hidden_values = static_cast<int64_t>(n) * c.dim;
    float* const projected = sized(b.projected, static_cast<size_t>(hidden_values));
    const cpu::MatmulOutput output[] = {{&w.wo, projected}};
    project(output, attended, n);
    cpu::add_in_place(h, projected, hidden_values);

    // The feed-forward block a token tile slice at a time: its two ffn_dim-wide activations are
    // the step's largest (88 KiB a row for 7B), and a slice may be longer than slice_rows_ (its
    // probe rows). Every operation is per row: the result is the same.
    cpu::rms_norm(h, w.ffn_norm, n, c.dim, c.rms_eps, x, &workers_);
    float* const gate = sized(b.gate, static_cast<size_t>(std::min(n, kFeedForwardRows)) * c.ffn_dim);
    float* const up = sized(b.up, static_cast<size_t>(std::min(n, kFeedForwardRows)) * c.ffn_dim);
    for (int first = 0; first < n; first += kFeedForwardRows) {
        check_cancel();
        const int rows = std::min(kFeedForwardRows, n - first);
        const float* in = x + static_cast<size_t>(first) * c.dim;
        const cpu::MatmulOutput gate_up[] = {{&w.w_gate, gate}, {&w.w_up, up}};
        cpu::matmul_group(gate_up, in, rows, kernels_, &workers_);
        cpu::swiglu(gate, up, static_cast<int64_t>(rows) * c.ffn_dim, kernels_.isa, &workers_);
        cpu::matmul(w.w_down, gate, rows, projected + static_cast<size_t>(first) * c.dim, kernels_, &workers_);
    }
    cpu::add_in_place(h, projected, hidden_values);
}

void CpuBackend::check_cancel() const
{
    if (cancel_ && cancel_->load())
        throw Cancelled();
}

void CpuBackend::project(std::span<const cpu::MatmulOutput> outputs, const float* x, int n)
{
    std::array<cpu::MatmulOutput, cpu::kMaxMatmulGroup> slice;
    const int64_t cols = outputs.front().w->cols;
    for (int first = 0; first < n; first += kFeedForwardRows) {
        check_cancel();
        const int rows = std::min(kFeedForwardRows, n - first);
        for (size_t i = 0; i < outputs.size(); ++i)
            slice[i] = {outputs[i].w, outputs[i].y + static_cast<int64_t>(first) * outputs[i].w->rows};
        cpu::matmul_group({slice.data(), outputs.size()}, x + first * cols, rows, kernels_, &workers_);
    }
}

void CpuBackend::gather(HiddenStates& hidden, std::span<const int> rows)
{
    auto& h = cpu_states(hidden);
    keep_rows(h.values, h.dim, rows);
}

void CpuBackend::shift_key_positions(KvLayerStore& cache, std::span<const int32_t> shifts)
{
    const ModelConfig& c = config();
    auto& kv = static_cast<CpuKvLayerStore&>(cache);
    if (shifts.size() != static_cast<size_t>(kv.size()) &&
        shifts.size() != static_cast<size_t>(kv.size()) * static_cast<size_t>(c.n_kv_heads))
        throw Error("shift_key_positions: " + std::to_string(shifts.size()) + " shifts for " +
                    std::to_string(kv.size()) + " entries of " + std::to_string(c.n_kv_heads) + " KV heads");
    kv.rotate_keys(c, shifts, workers_);
}

std::vector<float> CpuBackend::logits_rows(const HiddenStates& hidden, std::span<const int> rows)
{
    const ModelConfig& c = config();
    const auto& h = cpu_states(hidden);
    const int n = static_cast<int>(rows.size());
    std::vector<float> selected(static_cast<size_t>(n) * c.dim);
    for (int i = 0; i < n; ++i) {
        const int row = rows[static_cast<size_t>(i)];
        if (row < 0 || row >= h.rows())
            throw Error("logits: row " + std::to_string(row) + " of " + std::to_string(h.rows()));
        std::copy_n(h.values.begin() + static_cast<ptrdiff_t>(row) * c.dim, c.dim,
                    selected.begin() + static_cast<ptrdiff_t>(i) * c.dim);
    }
    std::vector<float> x(selected.size());
    cpu::rms_norm(selected.data(), weights_.output_norm, n, c.dim, c.rms_eps, x.data(), &workers_);
    std::vector<float> out(static_cast<size_t>(n) * c.n_vocab);
    cpu::matmul(weights_.output, x.data(), n, out.data(), kernels_, &workers_);
    return out;
}

double CpuBackend::copy_bandwidth()
{
    // Buffers far larger than the caches, copied by the backend's threads, best of a few tries.
    constexpr size_t kBytes = size_t(256) << 20;
    std::vector<std::byte> from(kBytes, std::byte{1}), to(kBytes);
    double best = 0;
    for (int attempt = 0; attempt < 4; ++attempt) {
        const auto start = std::chrono::steady_clock::now();
        const int64_t tasks = workers_.threads();
        const size_t share = (kBytes + static_cast<size_t>(tasks) - 1) / static_cast<size_t>(tasks);
        workers_.run(tasks, [&](int64_t task, int) {
            const size_t begin = std::min(kBytes, share * static_cast<size_t>(task));
            const size_t end = std::min(kBytes, begin + share);
            std::memcpy(to.data() + begin, from.data() + begin, end - begin);
        });
        const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
        best = std::max(best, 2.0 * kBytes / seconds.count());
    }
    return best;
}

} // namespace pyramid
