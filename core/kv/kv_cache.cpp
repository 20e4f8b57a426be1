#include "kv/kv_cache.h"

#include "util/byte_size.h"
#include "util/error.h"

namespace pyramid {

KvCache::KvCache(Backend& backend, int n_layers) : backend_(backend)
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

void KvCache::append_positions(int layer, std::span<const int32_t> positions)
{
    auto& p = layers_[layer].positions;
    p.insert(p.end(), positions.begin(), positions.end());
    if (static_cast<int>(p.size()) != layers_[layer].store->size())
        throw Error("KV cache layer " + std::to_string(layer) + " holds " +
                    std::to_string(layers_[layer].store->size()) + " entries but " + std::to_string(p.size()) +
                    " positions");
}

void KvCache::keep(int layer, std::span<const int> indices)
{
    Layer& l = layers_[layer];
    std::vector<int32_t> kept;
    kept.reserve(indices.size());
    for (int i : indices)
        kept.push_back(l.positions.at(static_cast<size_t>(i)));
    l.positions = std::move(kept);
    l.store->keep(indices);
}

void KvCache::set_positions(int layer, std::vector<int32_t> positions)
{
    if (static_cast<int>(positions.size()) != length(layer))
        throw Error("KV cache layer " + std::to_string(layer) + ": " + std::to_string(positions.size()) +
                    " new positions for " + std::to_string(length(layer)) + " entries");
    layers_[layer].positions = std::move(positions);
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
        layer.positions.clear();
    }
}

} // namespace pyramid
