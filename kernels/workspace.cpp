#include "workspace.h"

#include <algorithm>
#include <string>
#include <utility>

#include "cuda_check.h"
#include "top_logits_ops.h"

namespace pyramid::cuda {

// What planners count (backend/step_memory.h) must be what the kernels use.
static_assert(sizeof(DecodeSequence) <= kMaxDecodeDescriptorBytes);
static_assert(StepBufferLayout{}.max_top_logits == kMaxTopLogits);

void Workspace::grow(DeviceBuffer& buffer, size_t bytes, const std::string& what)
{
    if (bytes <= buffer.bytes())
        return;
    replacing();
    const size_t capacity = std::max(bytes, 2 * buffer.bytes());
    buffer = DeviceBuffer();
    buffer = DeviceBuffer(capacity, what);
}

void Workspace::replacing()
{
    stream_.synchronize("workspace growth");
    ++generation_;
}

Workspace::Workspace(const ModelConfig& config, const StepBufferLayout& layout, WorkStream& stream)
    : config_(config), layout_(layout), stream_(stream)
{
    layout_.chunk_rows = std::max(1, layout_.chunk_rows);
    reserve_logit_rows(1);
    reserve_chunk(std::min(64, layout_.chunk_rows));
    reserve_rows(std::min(64, std::max(1, config.context_length)));
    reserve_entries(std::max(1, config.context_length));
}

void Workspace::reserve_chunk(int rows)
{
    rows = std::min(rows, layout_.chunk_rows);
    if (rows <= chunk_rows_)
        return;
    replacing();
    const int capacity = grown_row_capacity(chunk_rows_, rows, layout_.chunk_rows);
    const ChunkBuffers sizes = chunk_buffers(config_, layout_, capacity);
    const std::string what = "activations for " + std::to_string(capacity) + " rows";
    using Buffer = DeviceBuffer Workspace::*;
    using Size = size_t ChunkBuffers::*;
    static constexpr std::pair<Buffer, Size> kChunkBuffers[] = {
        {&Workspace::gathered_, &ChunkBuffers::hidden},
        {&Workspace::normed_, &ChunkBuffers::normed},       {&Workspace::q_, &ChunkBuffers::q},
        {&Workspace::k_, &ChunkBuffers::k},                 {&Workspace::v_, &ChunkBuffers::v},
        {&Workspace::attended_, &ChunkBuffers::attended},   {&Workspace::stats_, &ChunkBuffers::stats},
        {&Workspace::positions_, &ChunkBuffers::positions}, {&Workspace::gate_, &ChunkBuffers::gate},
        {&Workspace::up_, &ChunkBuffers::up},               {&Workspace::activated_, &ChunkBuffers::activated}};
    // Free the old buffers first so the peak is the new size, not old + new.
    for (const auto& [buffer, size] : kChunkBuffers)
        this->*buffer = DeviceBuffer();
    for (const auto& [buffer, size] : kChunkBuffers)
        this->*buffer = DeviceBuffer(sizes.*size, what);
    chunk_rows_ = capacity;
}

void Workspace::reserve_rows(int rows)
{
    if (rows <= rows_)
        return;
    replacing();
    const int capacity = grown_row_capacity(rows_, rows, config_.context_length);
    const StepRowBuffers sizes = step_row_buffers(capacity);
    const std::string what = "row indices and probe weights for " + std::to_string(capacity) + " rows";
    row_indices_ = DeviceBuffer();
    probe_weights_ = DeviceBuffer();
    row_indices_ = DeviceBuffer(sizes.row_indices, what);
    probe_weights_ = DeviceBuffer(sizes.probe_weights, what);
    rows_ = capacity;
}

void Workspace::reserve_entries(int entries)
{
    grow(probe_, static_cast<size_t>(entries) * sizeof(float), "attention probe scores");
}

void Workspace::reserve_probe_partials(size_t floats)
{
    grow(probe_partials_, floats * sizeof(float), "attention probe partial sums");
}

void Workspace::reserve_logit_rows(int rows)
{
    if (rows <= logit_rows_)
        return;
    replacing();
    const int capacity = std::max(rows, 2 * logit_rows_);
    logits_ = DeviceBuffer();
    logits_ = DeviceBuffer(static_cast<size_t>(capacity) * config_.n_vocab * sizeof(float),
                           "logits for " + std::to_string(capacity) + " rows");
    logit_rows_ = capacity;
}

void Workspace::reserve_top_logits(size_t entries)
{
    grow(top_logits_, entries * (sizeof(int32_t) + sizeof(float)), "the highest logits of each row");
}

void Workspace::reserve_decode(const DecodeLayout& layout)
{
    const size_t heads = static_cast<size_t>(config_.n_heads);
    const size_t splits = static_cast<size_t>(layout.splits);
    grow(decode_sequences_, static_cast<size_t>(layout.count) * sizeof(DecodeSequence),
         "the decode batch's sequences");
    grow(partial_stats_, splits * heads * 2 * sizeof(float), "decode attention partial results");
    grow(partial_out_, splits * heads * static_cast<size_t>(config_.head_dim) * sizeof(float),
         "decode attention partial results");
    grow(decode_scores_, static_cast<size_t>(layout.scores) * sizeof(float), "decode attention scores");
}

DecodeScratch Workspace::decode_scratch() const
{
    return {partial_stats_.as<float>(), partial_out_.as<float>(), decode_scores_.as<float>()};
}

size_t Workspace::bytes() const
{
    size_t total = 0;
    for (const DeviceBuffer* b :
         {&gathered_, &normed_, &q_, &k_, &v_, &attended_, &stats_, &positions_, &gate_, &up_, &activated_,
          &row_indices_, &probe_weights_, &probe_, &probe_partials_, &logits_, &top_logits_, &decode_sequences_, &partial_stats_,
          &partial_out_, &decode_scores_})
        total += b->bytes();
    return total;
}

} // namespace pyramid::cuda
