// CudaBackend::run_layer_batch: one transformer layer for the rows of every sequence of a step,
// queued on the backend's stream, 512 rows (a workspace chunk) at a time; a layer whose rows all
// decode is one chunk, replayed as a graph in recorded steps (decode_step_graphs.h).
#include <algorithm>

#include "attention_ops.h"
#include "cuda_backend.h"
#include "cuda_check.h"
#include "decode_attention.h"
#include "elementwise_ops.h"
#include "kv_ops.h"

namespace pyramid::cuda {

void CudaBackend::run_layer_batch(int layer, HiddenStates& hidden, std::span<const SequenceRows> sequences)
{
    use_device();
    const ModelConfig& c = config();
    if (layer < 0 || layer >= c.n_layers)
        throw Error("layer " + std::to_string(layer) + " does not exist (the model has " +
                    std::to_string(c.n_layers) + ")");
    auto& h = device_states(hidden);
    const int n = h.rows();
    check_sequence_rows(n, sequences);
    // The paged store keeps one block table per layer for all heads (KvLayerStore::keep_per_head).
    for (const SequenceRows& seq : sequences)
        if (seq.probe && seq.probe->per_kv_head)
            throw Error("the CUDA backend keeps one set of KV entries per layer for all heads: per-head selection "
                        "(--kv-selection per-head, kv_selection \"per-head\") needs the CPU backend; use per-layer");

    Workspace& ws = *workspace_;
    const int chunk = ws.chunk_rows();
    ws.reserve_chunk(std::min(n, chunk));

    std::vector<int32_t>& positions = step_positions_;
    positions.clear();
    for (const SequenceRows& seq : sequences)
        positions.insert(positions.end(), seq.positions.begin(), seq.positions.end());
    const int probe_entries = prepare_probes(sequences, n);

    const bool all_decode = n <= chunk && std::all_of(sequences.begin(), sequences.end(),
                                                      [](const SequenceRows& seq) { return seq.positions.size() == 1; });
    if (all_decode) {
        // One chunk, every sequence one row: the layer's work follows from its launch alone, so
        // a recorded step replays the layer's graph (decode_step_graphs.h).
        upload_chunk_positions(0, n);
        const DecodeLayout layout = prepare_decode_rows(0, n, sequences);
        const DecodeLayerLaunch launch{layer, h.data(), layout, ws.generation()};
        // Queued from the launch alone; two pointers, so the std::function allocates nothing in
        // the decode step's hot path.
        step_graphs_->run_layer(launch, [this, &launch] { queue_decode_layer(launch); });
        for (CudaKvLayerStore* kv : decode_stores_)
            kv->commit_append(1);
    } else {
        // A chunk's keys and values are stored before its rows attend, so each row sees exactly
        // the entries before it and itself, as in one pass over all rows.
        const DeviceLayer& w = device_weights_->layer(layer);
        for (int r0 = 0; r0 < n; r0 += chunk) {
            const int m = std::min(chunk, n - r0);
            upload_chunk_positions(r0, m);
            float* h0 = h.data() + static_cast<size_t>(r0) * c.dim;
            queue_layer_chunk(w, h0, m, [&] { return attend_chunk(w, r0, m, sequences); });
        }
    }

    if (probe_entries > 0) {
        // Every sequence's scores, in one copy the engine waits for (wait_for_probes(layer)).
        std::vector<ProbeDownloads::Piece> pieces;
        int offset = 0;
        for (const SequenceRows& seq : sequences)
            if (seq.probe) {
                pieces.push_back({seq.probe_out, offset, seq.cache->size()});
                offset += seq.cache->size();
            }
        probe_downloads_->queue(layer, ws.probe(), probe_entries, std::move(pieces));
    }
}

void CudaBackend::upload_chunk_positions(int r0, int m)
{
    // A step's layers mostly see the same positions in one chunk: uploaded once a step.
    Workspace& ws = *workspace_;
    const int n = static_cast<int>(step_positions_.size());
    if (ws.positions() != step_positions_on_device_ || step_positions_ != step_positions_uploaded_) {
        uploads_->upload(ws.positions(), step_positions_.data() + r0, static_cast<size_t>(m) * sizeof(int32_t),
                         "run_layer (positions)");
        step_positions_on_device_ = m == n ? ws.positions() : nullptr;
        step_positions_uploaded_ = step_positions_;
    }
}

void CudaBackend::queue_decode_layer(const DecodeLayerLaunch& launch)
{
    const DeviceLayer& w = device_weights_->layer(launch.layer);
    const int n = launch.layout.count;
    queue_layer_chunk(w, launch.hidden, n, [&] { return queue_decode_attention(w, launch.layout, n); });
}

void CudaBackend::queue_layer_chunk(const DeviceLayer& w, float* h0, int m, const std::function<Int8Rows()>& attend)
{
    const ModelConfig& c = config();
    const Precision p = options_.precision;
    const KernelStream s = work_->kernels();
    const ProjectionQueue blas = projections();
    const ProjectionScratch scratch = this->scratch();
    const Workspace& ws = *workspace_;
    // fp16 decode with quantized weights: the norm also rounds its output to int8 for the
    // matvecs of all three.
    Int8Rows normed_int8 = int8_rows_for({&w.wq, &w.wk, &w.wv}, m, scratch);
    rms_norm(h0, w.attn_norm, m, c.dim, c.rms_eps, ws.normed(), p, s, normed_int8);
    project_each(blas, {{&w.wq, ws.q()}, {&w.wk, ws.k()}, {&w.wv, ws.v()}}, ws.normed(), m, scratch, normed_int8);
    rope(ws.q(), m, c.n_heads, c.head_dim, ws.positions(), c.rope_theta, c.rope_layout, s, ws.k(), c.n_kv_heads);

    const Int8Rows attended_int8 = attend();
    project(blas, w.wo, ws.attended(), m, h0, 1.0f, scratch, attended_int8);  // residual: h += attention output

    normed_int8 = int8_rows_for({&w.w_gate, &w.w_up}, m, scratch);
    rms_norm(h0, w.ffn_norm, m, c.dim, c.rms_eps, ws.normed(), p, s, normed_int8);
    project_each(blas, {{&w.w_gate, ws.gate()}, {&w.w_up, ws.up()}}, ws.normed(), m, scratch, normed_int8);
    const Int8Rows activated_int8 = int8_rows_for({&w.w_down}, m, scratch);
    swiglu(ws.gate(), ws.up(), static_cast<int64_t>(m) * c.ffn_dim, ws.activated(), p, s, activated_int8);
    // residual: h += feed-forward output
    project(blas, w.w_down, ws.activated(), m, h0, 1.0f, scratch, activated_int8);
}

int CudaBackend::prepare_probes(std::span<const SequenceRows> sequences, int n)
{
    // Probe scores of all sequences share one buffer, one slice each, downloaded at once. A
    // prompt's probe adds each chunk's probed rows as the chunk attends (attention_probe_add),
    // into a slice cleared first; its rows' weights wait in their own slot.
    Workspace& ws = *workspace_;
    probe_slices_.assign(sequences.size(), -1);
    probe_slots_.assign(sequences.size(), -1);
    ws.reserve_rows(n);  // the probe weights' slots
    int probe_entries = 0, probe_rows = 0;
    int longest_prompt_probe = 0;  // entries of the longest cache a prompt's probe reads
    for (size_t i = 0; i < sequences.size(); ++i) {
        const SequenceRows& seq = sequences[i];
        if (!seq.probe)
            continue;
        const int rows = static_cast<int>(seq.positions.size());
        probe_slices_[i] = probe_entries;
        probe_entries += seq.cache->size() + rows;
        if (rows > 1) {
            const int probed = std::max(0, rows - seq.probe->first_row);
            probe_slots_[i] = probe_rows;
            uploads_->upload(ws.probe_weights() + probe_rows, seq.probe->row_weights.data(),
                             static_cast<size_t>(probed) * sizeof(float), "run_layer (probe weights)");
            probe_rows += probed;
            longest_prompt_probe = std::max(longest_prompt_probe, seq.cache->size() + rows);
        }
    }
    if (probe_entries > 0)
        ws.reserve_entries(probe_entries);
    if (longest_prompt_probe > 0) {
        const AttentionDims dims{config().n_heads, config().n_kv_heads, config().head_dim};
        ws.reserve_probe_partials(probe_partial_floats(dims, longest_prompt_probe));
        check(cudaMemsetAsync(ws.probe(), 0, static_cast<size_t>(probe_entries) * sizeof(float), stream_.get()),
              "run_layer (clear probe scores)");
    }
    return probe_entries;
}

Int8Rows CudaBackend::attend_chunk(const DeviceLayer& w, int r0, int m, std::span<const SequenceRows> sequences)
{
    const ModelConfig& c = config();
    const Precision p = options_.precision;
    const KernelStream s = work_->kernels();
    Workspace& ws = *workspace_;
    const int q_width = c.n_heads * c.head_dim;
    const int kv_width = c.kv_dim();
    const size_t stats_width = static_cast<size_t>(c.n_heads) * 2;
    const size_t q_row_bytes = static_cast<size_t>(q_width) * element_bytes(p);
    const AttentionDims dims{c.n_heads, c.n_kv_heads, c.head_dim};

    // Longer runs of rows (prompts) run sequence by sequence; sequences with one new row
    // (decode steps) go through the batched decode kernels after them, three launches for all.
    for (size_t i = 0; i < sequences.size(); ++i) {
        const SequenceRows& seq = sequences[i];
        const int rows = static_cast<int>(seq.positions.size());
        const int begin = std::max(seq.first_row, r0), end = std::min(seq.first_row + rows, r0 + m);
        if (rows == 1 || begin >= end)
            continue;
        const int local = begin - r0, count = end - begin;
        auto& kv = static_cast<CudaKvLayerStore&>(*seq.cache);
        const int first_entry = kv.size();
        kv.reserve_append(count);
        const KvBlockTable table = kv.table();
        const int len = first_entry + count;
        const size_t kv_row = static_cast<size_t>(local) * kv_width;
        store_kv(ws.k() + kv_row, ws.v() + kv_row, count, first_entry, table, s);
        kv.commit_append(count);
        float* stats = seq.probe ? ws.stats() + static_cast<size_t>(local) * stats_width : nullptr;
        void* attended = static_cast<std::byte*>(ws.attended()) + static_cast<size_t>(local) * q_row_bytes;
        attention(ws.q() + static_cast<size_t>(local) * q_width, count, table, len, dims, p, attended, stats, s);
        if (probe_slots_[i] < 0)
            continue;
        // This chunk's rows from the probe's first row on: the cache's last entries now.
        const int probe_begin = seq.first_row + seq.probe->first_row;
        const int first_probed = std::max(begin, probe_begin);
        if (first_probed < end)
            attention_probe_add(ws.q() + static_cast<size_t>(local) * q_width, count, table, len, dims, p, stats,
                                first_probed - begin, ws.probe_weights() + probe_slots_[i] + (first_probed - probe_begin),
                                ws.probe_partials(), ws.probe() + probe_slices_[i], s);
    }
    const DecodeLayout layout = prepare_decode_rows(r0, m, sequences);
    const Int8Rows attended_int8 = queue_decode_attention(w, layout, m);
    for (CudaKvLayerStore* kv : decode_stores_)
        kv->commit_append(1);
    return attended_int8;
}

DecodeLayout CudaBackend::prepare_decode_rows(int r0, int m, std::span<const SequenceRows> sequences)
{
    std::vector<DecodeSequence>& decoding = decode_batch_;
    std::vector<CudaKvLayerStore*>& decoding_stores = decode_stores_;
    decoding.clear();
    decoding_stores.clear();
    for (size_t i = 0; i < sequences.size(); ++i) {
        const SequenceRows& seq = sequences[i];
        if (seq.positions.size() != 1 || seq.first_row < r0 || seq.first_row >= r0 + m)
            continue;
        auto& kv = static_cast<CudaKvLayerStore&>(*seq.cache);
        const int first_entry = kv.size();
        void* new_block = kv.reserve_decode_append();
        DecodeSequence d;
        d.blocks = kv.table().blocks;
        d.new_block = new_block;
        d.len = first_entry + 1;
        d.row = seq.first_row - r0;
        d.score_base = seq.probe ? 0 : -1;
        d.probe_base = std::max(probe_slices_[i], 0);
        d.probe_weight = seq.probe && seq.probe->first_row == 0 ? seq.probe->row_weights.at(0) : 0.0f;
        decoding.push_back(d);
        decoding_stores.push_back(&kv);
    }
    const DecodeLayout layout = lay_out_decode_batch(decoding, config().n_heads);
    if (layout.count > 0) {
        workspace_->reserve_decode(layout);
        uploads_->upload(workspace_->decode_sequences(), decoding.data(), decoding.size() * sizeof(DecodeSequence),
                         "run_layer (decode batch)");
    }
    return layout;
}

Int8Rows CudaBackend::queue_decode_attention(const DeviceLayer& w, const DecodeLayout& layout, int m)
{
    if (layout.count == 0)
        return {};
    const ModelConfig& c = config();
    const Workspace& ws = *workspace_;
    const KvBlockFormat format = kv_->geometry().format();
    // fp16 decode with quantized weights: when every row of the chunk decodes, the attention's
    // merge rounds its output for wo as it writes it (a prompt's rows come from attention()).
    Int8Rows attended_int8;
    if (layout.count == m && c.head_dim % kInt8Block == 0)
        attended_int8 = int8_rows_for({&w.wo}, m, scratch());
    store_kv_decode(ws.k(), ws.v(), ws.decode_sequences(), layout.count, format, work_->kernels());
    decode_attention(ws.q(), DecodeBatch{ws.decode_sequences(), layout, format},
                     AttentionDims{c.n_heads, c.n_kv_heads, c.head_dim}, options_.precision, ws.attended(), ws.stats(),
                     ws.decode_scratch(), ws.probe(), work_->kernels(), attended_int8);
    return attended_int8;
}

} // namespace pyramid::cuda
