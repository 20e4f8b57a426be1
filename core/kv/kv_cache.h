#pragma once
// The key/value cache of one sequence: per layer, its own number of entries, each entry with
// the original position it was encoded at. Entries are appended by the backend and removed
// by the compression policies through keep().
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
    int length(int layer) const { return static_cast<int>(layers_[layer].positions.size()); }
    std::vector<int> lengths() const;
    std::span<const int32_t> positions(int layer) const { return layers_[layer].positions; }
    KvLayerStore& store(int layer) { return *layers_[layer].store; }

    // Records the positions of entries the backend has just appended to `layer`.
    void append_positions(int layer, std::span<const int32_t> positions);
    // Keeps only the entries at these ascending indices.
    void keep(int layer, std::span<const int> indices);
    // Renumbers the positions of `layer` (keys must have been re-rotated by the backend).
    void set_positions(int layer, std::vector<int32_t> positions);

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
        std::vector<int32_t> positions;
    };
    Backend& backend_;
    std::vector<Layer> layers_;
    size_t byte_limit_ = 0;
};

} // namespace pyramid
