#pragma once
// The reference backend: float32 compute on the host, multithreaded, reading the weights
// straight from the loader's views (quantized rows are decoded on the fly, never expanded).
#include <vector>

#include "backend/backend.h"
#include "backend/cpu_kernels.h"
#include "backend/kernel_config.h"
#include "backend/kv_precision.h"
#include "backend/layer_slices.h"
#include "backend/worker_pool.h"

namespace pyramid {

// How the CPU backend counts its KV memory: in blocks, as the GPU's pool hands it out
// (kv_block_allocator.h).
struct CpuKvMemory {
    int block_entries = 16;     // entries of one layer per block, as the CUDA pool's
    size_t capacity_bytes = 0;  // what the caches may hold together; 0: the host's memory
};

class CpuBackend final : public Backend {
public:
    // The weights must outlive the backend. `kv_types`: how the KV cache's keys and values are
    // stored (float32, the reference, by default); q8 and q4 need heads of a multiple of 32
    // values, else pyramid::Error. `kernels`: how the matmuls and attention run (kernel_config.h); by
    // default the best this CPU has.
    // `slice_rows`: how many rows of a step go through a layer at a time (layer_slices.h); any
    // number gives the same result, tests compare them. `kv_memory`: the blocks its caches are
    // counted in, and their capacity (a capacity below one block is refused). `threads`: how
    // many threads its kernels run on; 0: one per performance core (cpu_cores.h). They are the
    // backend's own (worker_pool.h): its calls use no OpenMP setting and change none.
    static constexpr int kSliceRows = 256;
    explicit CpuBackend(const ModelWeights& weights, KvTypes kv_types = KvPrecision::F32,
                        const cpu::KernelConfig& kernels = cpu::best_kernel_config(), int slice_rows = kSliceRows,
                        const CpuKvMemory& kv_memory = {}, int threads = 0);

    BackendInfo info() const override;
    const ModelConfig& config() const override { return weights_.config; }

    std::unique_ptr<HiddenStates> embed(std::span<const int32_t> tokens) override;
    std::unique_ptr<KvLayerStore> new_kv_layer() override;
    size_t kv_entry_bytes() const override
    {
        return pyramid::kv_entry_bytes(kv_types_, config().n_kv_heads, config().head_dim);
    }
    void run_layer_batch(int layer, HiddenStates& hidden, std::span<const SequenceRows> sequences) override;
    void set_cancel_flag(const std::atomic<bool>* flag) override { cancel_ = flag; }
    void gather(HiddenStates& hidden, std::span<const int> rows) override;
    void shift_key_positions(KvLayerStore& cache, std::span<const int32_t> shifts) override;
    std::vector<float> logits_rows(const HiddenStates& hidden, std::span<const int> rows) override;
    double copy_bandwidth() override;

    KvBlockUse kv_blocks() const override { return kv_blocks_.use(); }

private:
    const ModelWeights& weights_;
    KvTypes kv_types_;
    cpu::KernelConfig kernels_;
    KvBlockAllocator kv_blocks_;  // outlives the stores (their contract: not the backend)
    const std::atomic<bool>* cancel_ = nullptr;
    WorkerPool workers_;

    int slice_rows_;

    // A slice's activations, kept from slice to slice and layer to layer (a backend runs one
    // step at a time): allocated for every slice, their pages were faulted in and zeroed each
    // time, 3-5% of a 512-token prompt (perf). They only grow; every use writes before it reads.
    struct SliceBuffers {
        std::vector<float> x, q, k, v, attended, projected, gate, up;
    };
    SliceBuffers slice_buffers_;

    void check_cancel() const;
    void run_layer_slice(const LayerWeights& w, float* hidden, std::span<const SequenceRows> sequences,
                         const LayerSlice& slice);
    // cpu::matmul_group in slices of rows, with check_cancel() before each: a long prompt's
    // projection stops within a slice. Slices are whole token tiles, so the result is the same.
    void project(std::span<const cpu::MatmulOutput> outputs, const float* x, int n);
};

} // namespace pyramid
