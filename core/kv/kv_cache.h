#pragma once
// The key/value cache of one sequence: per layer, its own number of entries, each entry with
// the original position it was encoded at. Entries are appended by the backend and removed
// by the compression policies through keep(). A layer's KV heads share their entries until a
// policy keeps different ones per head (keep_per_head, SnapKV's per-head selection); each
// head then has its own positions, still as many as the layer's length.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "backend/backend.h"

namespace pyramid {

class KvCache {
public:
    KvCache(Backend& backend, int n_layers);

    int n_layers() const { return static_cast<int>(layers_.size()); }
    int length(int layer) const { return static_cast<int>(layers_[layer].heads.front().size()); }
    std::vector<int> lengths() const;
    // The positions of `layer`'s entries, which all its KV heads share; throws pyramid::Error
    // for a layer whose heads keep different entries (read head_positions there).
    std::span<const int32_t> positions(int layer) const;
    // Whether `layer`'s KV heads keep different entries (after keep_per_head).
    bool per_head(int layer) const { return layers_[layer].heads.size() > 1; }
    // The positions of KV head `head`'s entries in `layer`, whether or not the heads share them.
    std::span<const int32_t> head_positions(int layer, int head) const;
    int n_kv_heads() const { return n_kv_heads_; }
    KvLayerStore& store(int layer) { return *layers_[layer].store; }

    // Records the positions of entries the backend has just appended to `layer` (every head).
    void append_positions(int layer, std::span<const int32_t> positions);
    // Keeps only the entries at these ascending indices, in every head.
    void keep(int layer, std::span<const int> indices);
    // Keeps, in each KV head g, only the entries at per_head[g] (ascending, the same number
    // for every head: the layer's length and bytes stay one number). Throws pyramid::Error for
    // a wrong count of lists, unequal lengths or an index out of range, before anything
    // changes, and when the backend's store keeps one set for all heads.
    void keep_per_head(int layer, std::span<const std::vector<int>> per_head);
    // Renumbers the positions of `layer` (keys must have been re-rotated by the backend): one
    // list for a layer whose heads share their entries, else one per KV head.
    void set_positions(int layer, std::vector<std::vector<int32_t>> per_head);

    size_t bytes() const;
    // Caps the bytes the cache may hold (0: no cap), as a memory pool of that size would.
    void set_byte_limit(size_t bytes) { byte_limit_ = bytes; }
    // Throws pyramid::Error when appending n entries to `layer` would pass the cap.
    void check_room(int layer, int n) const;
    // Makes room for n more entries in every layer (KvLayerStore::reserve), so that a step
    // appending them cannot run out of the backend's memory. Throws KvMemoryExhausted when it
    // cannot hold them; what was taken stays with the cache (freed by clear() or compaction).
    void reserve(int n);
    // The same with n for each layer, in layer order.
    void reserve(std::span<const int> per_layer);
    // Gives back, in every layer, the room a reserve() took that no entry filled.
    void release_unused();
    // Bytes of one entry in one layer (keys and values), as the backend stores them.
    size_t bytes_per_entry() const;
    void clear();

private:
    struct Layer {
        std::unique_ptr<KvLayerStore> store;
        // One list shared by all KV heads, or one per KV head after keep_per_head.
        std::vector<std::vector<int32_t>> heads = std::vector<std::vector<int32_t>>(1);
    };
    Backend& backend_;
    int n_kv_heads_;
    std::vector<Layer> layers_;
    size_t byte_limit_ = 0;
};

} // namespace pyramid
