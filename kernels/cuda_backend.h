#pragma once
// The CUDA implementation of pyramid::Backend (see core/backend/backend.h).
//
// Weights live on the GPU in the chosen precision, quantized GGUF matrices as their raw blocks
// (device_weights.h); projections run through cuBLAS or dequantizing kernels (projection.h) and the rest
// through this library's kernels on one stream. Keys and values are stored in fixed-size blocks
// from a pool shared by all layers and sequences of the backend. Only token ids, positions,
// probe weights and keep-indices go up, and only logits and probe scores come down (the
// scores into page-locked memory, collected once per decode step: probe_downloads.h).
// Stores and hidden states the backend hands out must not outlive it.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "cuda_hidden_states.h"
#include "cuda_kv_layer_store.h"
#include "device_weights.h"
#include "backend/cuda_backend_options.h"
#include "decode_step_graphs.h"
#include "projection.h"
#include "kv_memory.h"
#include "probe_downloads.h"
#include "step_range.h"
#include "work_stream.h"
#include "workspace.h"

namespace pyramid::cuda {

class CudaBackend final : public Backend {
public:
    // The weights must outlive the backend. Throws pyramid::Error when there is no such device,
    // the model's shape is unsupported, or the weights do not fit (bytes needed vs free).
    // `upload_progress` (may be empty) hears the fraction of the weights on the device as they
    // go up; what it throws stops the construction, and everything placed is freed.
    explicit CudaBackend(const ModelWeights& weights, const CudaBackendOptions& options = {},
                         const std::function<void(double)>& upload_progress = {});
    ~CudaBackend() override;

    BackendInfo info() const override;
    const ModelConfig& config() const override { return weights_.config; }

    std::unique_ptr<HiddenStates> embed(std::span<const int32_t> tokens) override;
    std::unique_ptr<KvLayerStore> new_kv_layer() override;
    size_t kv_entry_bytes() const override { return kv_->geometry().entry_bytes(); }
    // pyramid::step_memory of this backend's layout (backend/step_memory.h).
    size_t step_memory_bytes(const StepExtent& extent) const override;
    // Probe scores come down without stopping the stream: wait_for_probes() collects them.
    void run_layer_batch(int layer, HiddenStates& hidden, std::span<const SequenceRows> sequences) override;
    void wait_for_probes(int layer) override;
    // The step's layers run as CUDA graphs as options.graphs says (decode_step_graphs.h).
    void begin_decode_step() override;
    void gather(HiddenStates& hidden, std::span<const int> rows) override;
    void shift_key_positions(KvLayerStore& cache, std::span<const int32_t> shifts) override;
    std::vector<float> logits_rows(const HiddenStates& hidden, std::span<const int> rows) override;
    // Selects on the device (top_logits_ops.h) and downloads k ids and values per row; k above
    // kMaxTopLogits takes the host path of Backend.
    std::vector<TopLogits> top_logits_rows(const HiddenStates& hidden, std::span<const int> rows, int k) override;
    double copy_bandwidth() override;

    Precision precision() const { return options_.precision; }
    // Rows a layer runs at once (options.chunk_rows, or as the device's memory allowed).
    int chunk_rows() const { return options_.chunk_rows; }
    const KvBlockPool& kv_pool() const { return kv_->pool(); }
    // The pool's blocks, and what the stores' compactions gave back to it (they return the
    // blocks beyond their entries at once, as the CPU's do).
    KvBlockUse kv_blocks() const override
    {
        const KvBlockPool& pool = kv_pool();
        return {options_.kv_block_entries, pool.block_bytes(), pool.capacity_blocks(), pool.blocks_in_use(),
                pool.compaction_entries_dropped(), pool.compaction_blocks_freed()};
    }
    // Grows the KV pool to hold `blocks` free blocks now (throws pyramid::Error when it cannot).
    void reserve_kv_blocks(size_t blocks);
    // Frees the KV pool's unused chunks, the compaction scratch, the kept hidden states and the
    // step buffers (a new workspace of the size it had at load).
    void release_cached_memory() override;
    // Device memory this backend holds: weights, the dequantization and cuBLAS scratch,
    // activations (hidden states while no step holds them), KV compaction scratch and the KV pool.
    size_t bytes_held() const;
    cudaStream_t stream() const { return stream_.get(); }
    WorkStream::GraphCounts graph_counts() const { return work_->graph_counts(); }
    const GraphChoice& graph_choice() const { return step_graphs_->choice(); }

private:
    struct StreamDeleter {
        void operator()(cudaStream_t s) const { cudaStreamDestroy(s); }
    };
    struct CublasDeleter {
        void operator()(cublasHandle_t h) const { cublasDestroy(h); }
    };

    void use_device() const;
    // A trial recording at load: a driver or cuBLAS that cannot record a step turns graphs off
    // here (the reason joins the device's name), not in the middle of a reply.
    void try_step_graphs();
    StepBufferLayout step_layout() const;
    ProjectionScratch scratch() const { return {projection_scratch_.data(), projection_scratch_.bytes()}; }
    // cuBLAS and this library's kernels, both on the work stream.
    ProjectionQueue projections() const { return {cublas_.get(), work_->kernels()}; }
    // Final norm and output projection of these rows into the workspace's logits, queued on
    // the stream.
    void project_logit_rows(const HiddenStates& hidden, std::span<const int> rows);
    // Of run_layer_batch (cuda_layer_step.cpp). Lays out the step's probe scores (a slice per
    // probed sequence, a slot for a prompt's row weights), uploads the weights and clears the
    // slices prompts add to; returns the entries in all slices.
    int prepare_probes(std::span<const SequenceRows> sequences, int n);
    // Uploads the positions of step rows r0 .. r0 + m - 1 to the workspace, unless they are there.
    void upload_chunk_positions(int r0, int m);
    // Queues the work of a decode layer whose rows all decode, from its launch alone (the layer's
    // graph, when recorded).
    void queue_decode_layer(const DecodeLayerLaunch& launch);
    // Queues one layer for the m hidden rows at h0 (a chunk), `attend` queueing the attention
    // between the projections of q, k, v and of the output: it returns the int8 rows it wrote
    // beside its output for wo (empty: none).
    void queue_layer_chunk(const DeviceLayer& w, float* h0, int m, const std::function<Int8Rows()>& attend);
    // Stores the keys and values of chunk rows r0 .. r0 + m - 1 and attends them: prompts one by
    // one, decode rows together. Returns the int8 rows the merge wrote beside the output for wo
    // (empty when it wrote none).
    Int8Rows attend_chunk(const DeviceLayer& w, int r0, int m, std::span<const SequenceRows> sequences);
    // The chunk's sequences of one row: a block for each new entry, their descriptors uploaded
    // to the workspace (laid out, returned) and their stores in decode_stores_, to be committed
    // once their entries are queued.
    DecodeLayout prepare_decode_rows(int r0, int m, std::span<const SequenceRows> sequences);
    // Stores and attends the decode rows prepare_decode_rows laid out, in a chunk of m rows (the
    // int8 rows for wo when all m decode, as attend_chunk).
    Int8Rows queue_decode_attention(const DeviceLayer& w, const DecodeLayout& layout, int m);

    const ModelWeights& weights_;
    CudaBackendOptions options_;
    std::string device_name_;
    std::unique_ptr<CUstream_st, StreamDeleter> stream_;
    std::unique_ptr<WorkStream> work_;  // over stream_; before everything that queues work on it
    std::unique_ptr<DecodeStepGraphs> step_graphs_;
    StepRange step_range_;  // "decode step" / "prompt step", from embed() to its logits on the host
    DeviceBuffer cublas_workspace_;  // ours, so it is allocated at load and counted; outlives the handle
    std::unique_ptr<cublasContext, CublasDeleter> cublas_;
    std::unique_ptr<DeviceWeights> device_weights_;
    DeviceBuffer projection_scratch_;  // quantized projections: GEMM tiles, rounded activations (projection.h)
    std::unique_ptr<HostUploads> uploads_;  // before kv_, which uses it
    std::unique_ptr<KvMemory> kv_;
    std::unique_ptr<Workspace> workspace_;
    std::unique_ptr<HiddenBufferPool> hidden_pool_;
    std::unique_ptr<ProbeDownloads> probe_downloads_;
    // A layer step's host-side lists, kept here so a decode step allocates nothing for them:
    // per sequence its slice of the probe scores and the slot of its probed rows' weights
    // (-1: none); every row's position; a chunk's decoding sequences and their stores.
    std::vector<int> probe_slices_, probe_slots_;
    std::vector<int32_t> step_positions_;
    // The positions the workspace holds since this step's first upload (null: none).
    std::vector<int32_t> step_positions_uploaded_;
    const int32_t* step_positions_on_device_ = nullptr;
    std::vector<DecodeSequence> decode_batch_;
    std::vector<CudaKvLayerStore*> decode_stores_;
};

} // namespace pyramid::cuda
