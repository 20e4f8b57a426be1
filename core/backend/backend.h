#pragma once
// The compute interface the engine runs a model through. core drives the layer loop and the
// compression policies; a backend owns the weights' device copies, the activations and the
// key/value storage, and computes embedding, one transformer layer, gathers and logits.
// Only small host vectors cross the boundary: token ids, positions, the policy's selection
// scores and the logits. CpuBackend lives in core; CudaBackend in kernels/ (loaded at run time).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

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
    // Keeps only the entries at these ascending indices, in that order.
    virtual void keep(std::span<const int> indices) = 0;
    virtual size_t bytes() const = 0;  // bytes held for the live entries
};

// What a compression policy wants to learn from one layer's attention, computed on the fly
// from each query row's softmax without ever storing an n x n matrix:
//   out[j] = sum over query rows i >= first_row of  row_weights[i - first_row] * A[i, j]
// where A is the attention probability averaged over query heads and j runs over the layer's
// cache entries (0 where row i cannot see entry j).
struct AttentionProbe {
    int first_row = 0;                // index among the rows of this run_layer call
    std::vector<float> row_weights;   // one weight per row from first_row to the last
};

struct BackendInfo {
    std::string name;          // "cpu", "cuda"
    std::string device;        // human-readable device name
    size_t memory_total = 0;   // device memory in bytes (0: not known / host)
    size_t memory_used = 0;
};

class Backend {
public:
    virtual ~Backend() = default;

    virtual BackendInfo info() const = 0;
    virtual const ModelConfig& config() const = 0;

    virtual std::unique_ptr<HiddenStates> embed(std::span<const int32_t> tokens) = 0;
    virtual std::unique_ptr<KvLayerStore> new_kv_layer() = 0;

    // Runs transformer layer `layer` on the rows of `hidden` (in place). The rows' keys and
    // values, RoPE-encoded at `positions` (one per row), are appended to `cache`; each row
    // attends causally to every earlier entry of the cache and to itself (the new rows are
    // the cache's last rows). When `probe` is given, `probe_out` receives its column scores
    // over all cache entries after the append.
    virtual void run_layer(int layer, HiddenStates& hidden, std::span<const int32_t> positions,
                           KvLayerStore& cache, const AttentionProbe* probe,
                           std::vector<float>* probe_out) = 0;

    // Keeps only the rows at these ascending indices.
    virtual void gather(HiddenStates& hidden, std::span<const int> rows) = 0;

    // Moves every cached key of `cache` from the position it was encoded at to a new one
    // (one shift per entry, new = old + shift), by rotating it further: RoPE rotations
    // compose. Values do not depend on position. Used to renumber positions inside a full
    // context (the "re-encode" overflow policy).
    virtual void shift_key_positions(KvLayerStore& cache, std::span<const int32_t> shifts) = 0;

    // Final norm and output projection of one row: n_vocab logits.
    virtual std::vector<float> logits(const HiddenStates& hidden, int row) = 0;
};

} // namespace pyramid
