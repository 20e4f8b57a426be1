#include "backend/step_memory.h"

#include <algorithm>
#include <cstdint>

#include "backend/decode_splits.h"
#include "backend/kv_block_allocator.h"

namespace pyramid {

size_t ChunkBuffers::total() const
{
    return hidden + normed + q + k + v + attended + stats + positions + gate + up + activated;
}

ChunkBuffers chunk_buffers(const ModelConfig& config, const StepBufferLayout& layout, int rows)
{
    const size_t r = static_cast<size_t>(std::max(rows, 0));
    const size_t e = layout.element_bytes;
    const size_t q_width = static_cast<size_t>(config.n_heads) * static_cast<size_t>(config.head_dim);
    const size_t kv = static_cast<size_t>(config.kv_dim());
    const size_t dim = static_cast<size_t>(config.dim), ffn = static_cast<size_t>(config.ffn_dim);
    ChunkBuffers b;
    b.hidden = r * dim * sizeof(float);
    b.normed = r * dim * e;
    b.q = r * q_width * sizeof(float);
    b.k = r * kv * sizeof(float);
    b.v = r * kv * sizeof(float);
    b.attended = r * q_width * e;
    b.stats = r * static_cast<size_t>(config.n_heads) * 2 * sizeof(float);
    b.positions = r * sizeof(int32_t);
    b.gate = r * ffn * sizeof(float);
    b.up = r * ffn * sizeof(float);
    b.activated = r * ffn * e;
    return b;
}

int chunk_rows_for_memory(const ModelConfig& config, const StepBufferLayout& layout, size_t free_bytes)
{
    const size_t row = std::max<size_t>(chunk_buffers(config, layout, 1).total(), 1);
    const size_t rows = free_bytes / 32 / row;
    const size_t steps = rows / static_cast<size_t>(kChunkRowsStep);
    return static_cast<int>(std::clamp<size_t>(steps, 1, kMaxChunkRows / kChunkRowsStep)) * kChunkRowsStep;
}

StepRowBuffers step_row_buffers(int rows)
{
    const size_t r = static_cast<size_t>(std::max(rows, 0));
    return {r * sizeof(int32_t), r * sizeof(float)};
}

int grown_row_capacity(int held, int rows, int limit)
{
    return std::max(rows, std::min(2 * held, std::max(rows, limit)));
}

size_t StepMemory::total() const
{
    return row_buffers + hidden_states + logits + attention + kv_compaction + block_tables + kv_block_slack;
}

StepMemory step_memory(const ModelConfig& config, const StepBufferLayout& layout, const StepExtent& extent,
                       size_t kv_entry_bytes)
{
    const size_t rows = static_cast<size_t>(std::max(extent.rows, 1));
    const size_t sequences = static_cast<size_t>(std::max(extent.sequences, 1));
    const size_t context_length = static_cast<size_t>(std::max(config.context_length, 1));
    const size_t context = extent.sequence_length > 0
                               ? std::min(static_cast<size_t>(extent.sequence_length), context_length)
                               : context_length;
    const size_t heads = static_cast<size_t>(config.n_heads);
    // Buffers that grow to at least twice their old size may end just under twice the need.
    constexpr size_t kGrowth = 2;

    StepMemory m;
    // The worst case holds one row fewer than needed, so growth doubles as far as it may.
    // A decode step's logits gather one row per sequence.
    const int step_rows = static_cast<int>(std::max(rows, sequences));
    const int chunk = std::min(step_rows, std::max(layout.chunk_rows, 1));
    m.row_buffers = chunk_buffers(config, layout, grown_row_capacity(chunk - 1, chunk, layout.chunk_rows)).total() +
                    step_row_buffers(grown_row_capacity(step_rows - 1, step_rows, config.context_length)).total();
    // The engine runs one step at a time, so its pool keeps one buffer: the largest step's.
    m.hidden_states = rows * static_cast<size_t>(config.dim) * sizeof(float);
    // A device selection of a row's highest logits holds an id and a value for each.
    const size_t top = static_cast<size_t>(std::clamp(layout.max_top_logits, 0, config.n_vocab));
    m.logits = kGrowth * sequences *
               (static_cast<size_t>(config.n_vocab) * sizeof(float) + top * (sizeof(int32_t) + sizeof(float)));

    // Every sequence at its longest: its probe scores (entries), its decode splits
    // (softmax statistics and a partial output per head) and its raw scores (per head); and a
    // prompt's probe sums per KV head, one sequence at a time.
    const size_t entries = sequences * context + rows;
    const size_t splits = sequences * static_cast<size_t>(decode_splits_up_to(static_cast<int>(context)));
    const size_t partials = splits * heads * (2 + static_cast<size_t>(config.head_dim)) * sizeof(float);
    const size_t scores = sequences * heads * context * sizeof(float);
    const size_t prompt_partials = static_cast<size_t>(config.n_kv_heads) * context * sizeof(float);
    m.attention = kGrowth * (entries * sizeof(float) + partials + scores + prompt_partials +
                             sequences * kMaxDecodeDescriptorBytes);
    // Compaction moves at most one layer of one sequence, in passes through a scratch of at most
    // kv_compaction_entries, with a 32-bit index per entry of the layer.
    const int pass = kv_compaction_entries(layout, kv_entry_bytes);
    const int moved = static_cast<int>(std::min(context, static_cast<size_t>(pass)));
    m.kv_compaction = static_cast<size_t>(grown_row_capacity(moved - 1, moved, pass)) * kv_entry_bytes +
                      kGrowth * context * sizeof(int32_t);
    const size_t block = static_cast<size_t>(std::max(layout.kv_block_entries, 1));
    // A store allocates its table for the model's whole context up front.
    m.block_tables =
        sequences * static_cast<size_t>(config.n_layers) * kv_blocks_for(context_length, block) * sizeof(void*);
    m.kv_block_slack = sequences * static_cast<size_t>(config.n_layers) * (block - 1) * kv_entry_bytes;
    return m;
}

int kv_compaction_entries(const StepBufferLayout& layout, size_t kv_entry_bytes)
{
    const size_t entries = layout.kv_compaction_bytes / std::max<size_t>(kv_entry_bytes, 1);
    return static_cast<int>(std::clamp<size_t>(entries, 1, static_cast<size_t>(INT32_MAX)));
}

size_t dequant_scratch_bytes(const std::vector<MatrixExtent>& quantized, size_t element_bytes)
{
    size_t largest = 0, widest_row = 0;
    for (const MatrixExtent& m : quantized) {
        const size_t row = static_cast<size_t>(m.cols) * element_bytes;
        largest = std::max(largest, row * static_cast<size_t>(m.rows));
        widest_row = std::max(widest_row, row);
    }
    return std::max(std::min(largest, kMaxDequantTileBytes), widest_row);
}

size_t cublas_workspace_bytes(int compute_major) { return size_t(compute_major >= 9 ? 32 : 4) << 20; }

} // namespace pyramid
