#include "kv/kv_cache.h"

#include "util/byte_size.h"
#include "util/error.h"

namespace pyramid {

KvCache::KvCache(Backend& backend, int n_layers) : backend_(backend), n_kv_heads_(backend.config().n_kv_heads)
{
    layers_.resize(static_cast<size_t>(n_layers));
    for (Layer& layer : layers_)
        layer.store = backend_.new_kv_layer();
}

std::vector<int> KvCache::lengths() const
{
    std::vector<int> out;
    for (int l = 0; l < n_layers(); ++l)
        out.push_back(length(l));
    return out;
}

std::span<const int32_t> KvCache::positions(int layer) const
{
    if (per_head(layer))
        throw Error("KV cache layer " + std::to_string(layer) +
                    ": its KV heads keep different entries (per-head selection); read each head's positions");
    return layers_[layer].heads.front();
}

std::span<const int32_t> KvCache::head_positions(int layer, int head) const
{
    if (head < 0 || head >= n_kv_heads_)
        throw Error("KV cache: no KV head " + std::to_string(head) + " (the model has " + std::to_string(n_kv_heads_) +
                    ")");
    const auto& heads = layers_[layer].heads;
    return heads[heads.size() > 1 ? static_cast<size_t>(head) : 0];
}

void KvCache::append_positions(int layer, std::span<const int32_t> positions)
{
    Layer& l = layers_[layer];
    for (auto& p : l.heads)
        p.insert(p.end(), positions.begin(), positions.end());
    if (length(layer) != l.store->size())
        throw Error("KV cache layer " + std::to_string(layer) + " holds " + std::to_string(l.store->size()) +
                    " entries but " + std::to_string(length(layer)) + " positions");
}

namespace {

// positions[indices], checking that the indices are ascending and in range.
std::vector<int32_t> kept_positions(const std::vector<int32_t>& positions, std::span<const int> indices, int layer)
{
    std::vector<int32_t> kept;
    kept.reserve(indices.size());
    int previous = -1;
    for (int i : indices) {
        if (i <= previous || i >= static_cast<int>(positions.size()))
            throw Error("KV cache layer " + std::to_string(layer) + ": entry index " + std::to_string(i) +
                        " is out of order or beyond its " + std::to_string(positions.size()) + " entries");
        kept.push_back(positions[static_cast<size_t>(i)]);
        previous = i;
    }
    return kept;
}

} // namespace

void KvCache::keep(int layer, std::span<const int> indices)
{
    Layer& l = layers_[layer];
    std::vector<std::vector<int32_t>> kept;
    for (const auto& p : l.heads)
        kept.push_back(kept_positions(p, indices, layer));
    l.store->keep(indices);
    l.heads = std::move(kept);
}

void KvCache::keep_per_head(int layer, std::span<const std::vector<int>> per_head)
{
    Layer& l = layers_[layer];
    if (static_cast<int>(per_head.size()) != n_kv_heads_)
        throw Error("KV cache layer " + std::to_string(layer) + ": " + std::to_string(per_head.size()) +
                    " index lists for " + std::to_string(n_kv_heads_) + " KV heads");
    std::vector<std::vector<int32_t>> kept;
    for (int g = 0; g < n_kv_heads_; ++g) {
        const auto& indices = per_head[static_cast<size_t>(g)];
        if (indices.size() != per_head.front().size())
            throw Error("KV cache layer " + std::to_string(layer) + ": the KV heads must keep the same number of " +
                        "entries (head 0 keeps " + std::to_string(per_head.front().size()) + ", head " +
                        std::to_string(g) + " " + std::to_string(indices.size()) + ")");
        kept.push_back(kept_positions(l.heads[l.heads.size() > 1 ? static_cast<size_t>(g) : 0], indices, layer));
    }
    l.store->keep_per_head(per_head);
    l.heads = std::move(kept);
}

void KvCache::set_positions(int layer, std::vector<std::vector<int32_t>> per_head)
{
    Layer& l = layers_[layer];
    if (per_head.size() != l.heads.size())
        throw Error("KV cache layer " + std::to_string(layer) + ": " + std::to_string(per_head.size()) +
                    " position lists for " + std::to_string(l.heads.size()));
    for (const auto& p : per_head)
        if (static_cast<int>(p.size()) != length(layer))
            throw Error("KV cache layer " + std::to_string(layer) + ": " + std::to_string(p.size()) +
                        " new positions for " + std::to_string(length(layer)) + " entries");
    l.heads = std::move(per_head);
}

void KvCache::reserve(int n)
{
    for (Layer& layer : layers_)
        layer.store->reserve(n);
}

void KvCache::reserve(std::span<const int> per_layer)
{
    for (size_t l = 0; l < layers_.size(); ++l)
        layers_[l].store->reserve(per_layer[l]);
}

void KvCache::release_unused()
{
    for (Layer& layer : layers_)
        layer.store->release_unused();
}

void KvCache::check_room(int layer, int n) const
{
    if (byte_limit_ == 0)
        return;
    const size_t needed = bytes() + static_cast<size_t>(n) * bytes_per_entry();
    if (needed > byte_limit_)
        throw Error("out of KV-cache memory: layer " + std::to_string(layer) + " needs room for " +
                    std::to_string(n) + " more entries (" + byte_size_text(needed) +
                    " in all) but the cache is limited to " + byte_size_text(byte_limit_));
}

size_t KvCache::bytes() const
{
    size_t total = 0;
    for (const Layer& l : layers_)
        total += l.store->bytes();
    return total;
}

size_t KvCache::bytes_per_entry() const
{
    return backend_.kv_entry_bytes();
}

void KvCache::clear()
{
    for (Layer& layer : layers_) {
        layer.store = backend_.new_kv_layer();
        layer.heads.assign(1, {});
    }
}

} // namespace pyramid
