#include "workspace.h"

#include <algorithm>
#include <string>

#include "cuda_check.h"

namespace pyramid::cuda {
namespace {

// Replaces `buffer` with one of at least `bytes` (twice the old size when that is more) once
// the stream no longer uses it.
void grow(DeviceBuffer& buffer, size_t bytes, cudaStream_t stream, const std::string& what)
{
    if (bytes <= buffer.bytes())
        return;
    check(cudaStreamSynchronize(stream), "workspace growth");
    const size_t capacity = std::max(bytes, 2 * buffer.bytes());
    buffer = DeviceBuffer();
    buffer = DeviceBuffer(capacity, what);
}

} // namespace

Workspace::Workspace(const ModelConfig& config, Precision precision, cudaStream_t stream, int ffn_chunk_rows)
    : config_(config), precision_(precision), stream_(stream), ffn_chunk_rows_(std::max(1, ffn_chunk_rows))
{
    reserve_logit_rows(1);
    reserve_rows(std::min(64, std::max(1, config.context_length)));
    reserve_entries(std::max(1, config.context_length));
}

void Workspace::reserve_rows(int rows)
{
    if (rows <= rows_)
        return;
    check(cudaStreamSynchronize(stream_), "workspace growth");
    // Doubling keeps a prompt that grows step by step from reallocating every time.
    const int capacity = std::max(rows, std::min(2 * rows_, std::max(rows, config_.context_length)));
    const size_t r = static_cast<size_t>(capacity);
    const size_t e = element_bytes(precision_);
    const size_t q_width = static_cast<size_t>(config_.n_heads) * config_.head_dim;
    const size_t kv = static_cast<size_t>(config_.kv_dim());
    const size_t dim = static_cast<size_t>(config_.dim), ffn = static_cast<size_t>(config_.ffn_dim);
    const std::string what = "activations for " + std::to_string(capacity) + " rows";
    // Free the old buffers first so the peak is the new size, not old + new.
    for (DeviceBuffer* b : {&normed_, &q_, &k_, &v_, &attended_, &gate_, &up_, &activated_, &stats_, &hidden_scratch_,
                            &positions_, &row_indices_, &row_weights_})
        *b = DeviceBuffer();
    normed_ = DeviceBuffer(r * dim * e, what);
    q_ = DeviceBuffer(r * q_width * sizeof(float), what);
    k_ = DeviceBuffer(r * kv * sizeof(float), what);
    v_ = DeviceBuffer(r * kv * sizeof(float), what);
    attended_ = DeviceBuffer(r * q_width * e, what);
    const size_t ffn_rows = std::min<size_t>(r, static_cast<size_t>(ffn_chunk_rows_));
    gate_ = DeviceBuffer(ffn_rows * ffn * sizeof(float), what);
    up_ = DeviceBuffer(ffn_rows * ffn * sizeof(float), what);
    activated_ = DeviceBuffer(ffn_rows * ffn * e, what);
    stats_ = DeviceBuffer(r * static_cast<size_t>(config_.n_heads) * 2 * sizeof(float), what);
    hidden_scratch_ = DeviceBuffer(r * dim * sizeof(float), what);
    positions_ = DeviceBuffer(r * sizeof(int32_t), what);
    row_indices_ = DeviceBuffer(r * sizeof(int32_t), what);
    row_weights_ = DeviceBuffer(r * sizeof(float), what);
    rows_ = capacity;
}

void Workspace::reserve_entries(int entries)
{
    grow(probe_, static_cast<size_t>(entries) * sizeof(float), stream_, "attention probe scores");
}

void Workspace::reserve_logit_rows(int rows)
{
    if (rows <= logit_rows_)
        return;
    check(cudaStreamSynchronize(stream_), "workspace growth");
    const int capacity = std::max(rows, 2 * logit_rows_);
    logits_ = DeviceBuffer();
    logits_ = DeviceBuffer(static_cast<size_t>(capacity) * config_.n_vocab * sizeof(float),
                           "logits for " + std::to_string(capacity) + " rows");
    logit_rows_ = capacity;
}

void Workspace::reserve_top_logits(size_t entries)
{
    grow(top_logits_, entries * (sizeof(int32_t) + sizeof(float)), stream_, "the highest logits of each row");
}

void Workspace::reserve_decode(const DecodeLayout& layout)
{
    const size_t heads = static_cast<size_t>(config_.n_heads);
    const size_t splits = static_cast<size_t>(layout.splits);
    grow(decode_sequences_, static_cast<size_t>(layout.count) * sizeof(DecodeSequence), stream_,
         "the decode batch's sequences");
    grow(partial_stats_, splits * heads * 2 * sizeof(float), stream_, "decode attention partial results");
    grow(partial_out_, splits * heads * static_cast<size_t>(config_.head_dim) * sizeof(float), stream_,
         "decode attention partial results");
    grow(decode_scores_, static_cast<size_t>(layout.scores) * sizeof(float), stream_, "decode attention scores");
}

DecodeScratch Workspace::decode_scratch() const
{
    return {partial_stats_.as<float>(), partial_out_.as<float>(), decode_scores_.as<float>()};
}

size_t Workspace::bytes() const
{
    size_t total = 0;
    for (const DeviceBuffer* b : {&normed_, &q_, &k_, &v_, &attended_, &gate_, &up_, &activated_, &stats_,
                                  &hidden_scratch_, &positions_, &row_indices_, &row_weights_, &probe_, &logits_,
                                  &top_logits_, &decode_sequences_, &partial_stats_, &partial_out_, &decode_scores_})
        total += b->bytes();
    return total;
}

} // namespace pyramid::cuda
