#pragma once
// The compute interface the engine runs a model through. core drives the layer loop and the
// compression policies; a backend owns the weights' device copies, the activations and the
// key/value storage, and computes embedding, one transformer layer, gathers and logits.
// Only small host vectors cross the boundary: token ids, positions, the policy's selection
// scores and the logits. CpuBackend lives in core; CudaBackend in kernels/ (loaded at run time).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backend/device_memory.h"
#include "backend/kv_block_allocator.h"
#include "backend/step_memory.h"
#include "backend/top_logits.h"
#include "model/model_weights.h"

namespace pyramid {

// Activations of the tokens currently flowing through the layers of one sequence,
// [rows x dim], in the order of their positions.
class HiddenStates {
public:
    virtual ~HiddenStates() = default;
    virtual int rows() const = 0;
};

// One layer's keys and values for one sequence: entries in position order, appended by
// run_layer, removed by keep(). Positions live with the caller (KvCache).
class KvLayerStore {
public:
    virtual ~KvLayerStore() = default;
    virtual int size() const = 0;
    // Keeps only the entries at these ascending indices, in that order, in every KV head.
    virtual void keep(std::span<const int> indices) = 0;
    // Keeps, in each KV head g, only the entries at per_head[g] (ascending): the heads then
    // hold different entries, the same number each, so size() stays one number and attention
    // runs as before, each head over its own entries. One list per KV head, all of one length,
    // else pyramid::Error. This base version is for stores that keep one set of entries for
    // all heads (the GPU's paged store): it refuses.
    virtual void keep_per_head(std::span<const std::vector<int>> per_head);
    // Makes room for `more` entries beyond size(), so that appending them cannot fail for want
    // of memory. All or none: throws KvMemoryExhausted (kv_block_allocator.h), the store as it
    // was, when the memory cannot hold them. A scheduler reserves each sequence's next step
    // before it runs, so memory running out preempts or ends one sequence, not the batch.
    virtual void reserve(int more) = 0;
    // Gives back the room beyond what the entries fill: what a reserve() took that the step did
    // not use (a prompt's rows that PyramidInfer dropped before this layer).
    virtual void release_unused() = 0;
    virtual size_t bytes() const = 0;  // bytes held for the live entries
};

// What a compression policy wants to learn from one layer's attention, computed on the fly
// from each query row's softmax without ever storing an n x n matrix:
//   out[j] = sum over query rows i >= first_row of  row_weights[i - first_row] * A[i, j]
// where A is the attention probability averaged over query heads and j runs over the layer's
// cache entries (0 where row i cannot see entry j). With per_kv_head, one such list per KV
// head, head after head (n_kv_heads * entries values):
//   out[g * entries + j] = sum over rows i as above, and over the query heads h that share KV
//                          head g, of row_weights[i - first_row] * A_h[i, j]
// (a sum over the group, not an average): what SnapKV's per-head selection ranks by. Only
// backends whose stores keep entries per head (KvLayerStore::keep_per_head) deliver it; the
// others refuse such a probe.
struct AttentionProbe {
    int first_row = 0;                // index among the sequence's rows in this layer step
    std::vector<float> row_weights;   // one weight per row from first_row to the last
    bool per_kv_head = false;
};

// One sequence's share of the rows of a layer step (see Backend::run_layer_batch).
struct SequenceRows {
    int first_row = 0;                    // where its rows start in the batch's hidden states
    std::span<const int32_t> positions;   // one per row; their count is the sequence's row count
    KvLayerStore* cache = nullptr;        // the sequence's cache of this layer
    const AttentionProbe* probe = nullptr;  // probe rows count from first_row
    std::vector<float>* probe_out = nullptr;
};

// Throws pyramid::Error unless the sequences tile `rows` rows in order, each has a cache, and
// each probe has a place for its scores and one weight per probed row. Backends call it first.
void check_sequence_rows(int rows, std::span<const SequenceRows> sequences);

struct BackendInfo {
    std::string name;          // "cpu", "cuda"
    std::string device;        // human-readable device name
    std::optional<DeviceMemory> memory;  // the device's memory; nullopt on the host
};

class Backend {
public:
    virtual ~Backend() = default;

    virtual BackendInfo info() const = 0;
    virtual const ModelConfig& config() const = 0;

    virtual std::unique_ptr<HiddenStates> embed(std::span<const int32_t> tokens) = 0;
    virtual std::unique_ptr<KvLayerStore> new_kv_layer() = 0;
    // Bytes one layer's key and value of one token take in this backend's KV stores.
    virtual size_t kv_entry_bytes() const = 0;
    // Device memory steps up to `extent` may take beyond what the backend holds once loaded
    // (weights, fixed scratch, KV cache): activations, logits, attention scratch, counted as
    // backend/step_memory.h says. A planner keeps it free when it gives memory to KV caches.
    // This base version is for backends whose steps use ordinary host memory: 0.
    virtual size_t step_memory_bytes(const StepExtent& /*extent*/) const { return 0; }

    // Runs transformer layer `layer` on the rows of `hidden` (in place), which belong to one or
    // more sequences: each SequenceRows names a consecutive run of rows, their positions and the
    // sequence's cache for this layer. The rows' keys and values, RoPE-encoded at their
    // positions, are appended to their sequence's cache; each row attends causally to every
    // earlier entry of that cache and to itself (the new rows are the cache's last rows). A
    // sequence's probe gets its column scores over all its cache entries after the append.
    // Running many sequences in one call is what makes a batch fast: every projection sees all
    // rows together, so each weight matrix is read once per step, not once per sequence.
    // Probe scores may arrive late: see wait_for_probes().
    virtual void run_layer_batch(int layer, HiddenStates& hidden, std::span<const SequenceRows> sequences) = 0;

    // Returns once the probe scores of run_layer_batch(layer, ...) (the latest call for that
    // layer) and of every call before it are in their probe_out vectors (which must live until
    // then). A GPU backend queues their downloads and goes on with the next layers: a decode
    // step, whose selections only trim each layer's cache for later steps, queues every layer
    // first and then waits layer by layer, selecting for one layer while the device runs the
    // later ones. Scores nobody waited for are dropped by the next embed(). This base version
    // has nothing to wait for: it is for backends that write the scores before
    // run_layer_batch returns.
    virtual void wait_for_probes(int /*layer*/) {}

    // Says that a decode step comes next: embed(), run_layer_batch() for every layer, then
    // wait_for_probes() layer by layer where it has probes, then logits_rows() or
    // top_logits_rows(). A GPU backend may record the step up to its first wait and launch it
    // as one CUDA graph; it runs the same work either way. This base version does nothing.
    virtual void begin_decode_step() {}

    // run_layer_batch for rows that all belong to one sequence.
    void run_layer(int layer, HiddenStates& hidden, std::span<const int32_t> positions, KvLayerStore& cache,
                   const AttentionProbe* probe, std::vector<float>* probe_out)
    {
        const SequenceRows one{0, positions, &cache, probe, probe_out};
        run_layer_batch(layer, hidden, std::span<const SequenceRows>(&one, 1));
    }

    // A prompt's layer may take seconds on a CPU. While `flag` is set (not null), a backend
    // whose run_layer_batch is that slow checks it between parts of the layer and throws
    // pyramid::Cancelled once it reads true; the caches the call touched must then be reset.
    // Null stops the checks. This base version never checks: its steps are short.
    virtual void set_cancel_flag(const std::atomic<bool>* /*flag*/) {}

    // Keeps only the rows at these ascending indices.
    virtual void gather(HiddenStates& hidden, std::span<const int> rows) = 0;

    // Moves every cached key of `cache` from the position it was encoded at to a new one
    // (one shift per entry, new = old + shift), by rotating it further: RoPE rotations
    // compose. Values do not depend on position. Used to renumber positions inside a full
    // context (the "re-encode" overflow policy). A store whose heads keep different entries
    // (keep_per_head) takes n_kv_heads * size() shifts, head after head; backends without
    // keep_per_head take size() shifts only.
    virtual void shift_key_positions(KvLayerStore& cache, std::span<const int32_t> shifts) = 0;

    // Final norm and output projection of the given rows, together: rows.size() * n_vocab
    // logits, row after row.
    virtual std::vector<float> logits_rows(const HiddenStates& hidden, std::span<const int> rows) = 0;

    // For each of the given rows, its k highest logits (see top_logits.h), rows in order: the
    // last step of sampling with a top-k limit. This base version computes the whole rows with
    // logits_rows() and selects on the host; a GPU backend selects on the device and moves
    // only k logits per row.
    virtual std::vector<TopLogits> top_logits_rows(const HiddenStates& hidden, std::span<const int> rows, int k);

    // Bytes per second a large copy within the backend's memory moves (read plus written),
    // measured when called: what a memory-bound step could at best achieve.
    virtual double copy_bandwidth() = 0;

    // The blocks the KV caches hold now, of the capacity, and what compaction gave back; one
    // account for the largest-batch search and the reports. This base version is for
    // backends that do not count their caches in blocks (block_entries 0).
    virtual KvBlockUse kv_blocks() const { return {}; }

    // Gives back to the device what the backend keeps for reuse but nothing live holds (free
    // KV blocks' memory, buffers grown for the largest step so far), as torch.cuda.empty_cache()
    // does: they grow again when a step needs them. Between steps only; caches stay valid. For
    // a benchmark that measures each run's own peak, or an app that goes idle.
    virtual void release_cached_memory() {}

    // The n_vocab logits of one row.
    std::vector<float> logits(const HiddenStates& hidden, int row)
    {
        return logits_rows(hidden, std::span<const int>(&row, 1));
    }
};

} // namespace pyramid
