#pragma once
// A layer store filled with random entries, for the kernel tests: its own pool, `len` entries
// appended in two steps (as prefill then decode do), and a host copy of what was stored. Each
// test file passes its own generator, so its inputs stay deterministic whatever the others do.
// Entries are stored in the precision's own type, or in the KV types given (q8, q4: rows of a
// multiple of 32 values).
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "backend/kv_entry_types.h"

#include "cuda_kv_layer_store.h"
#include "host_uploads.h"
#include "gpu_test.h"
#include "kv_memory.h"
#include "kv_ops.h"

namespace pyramid::gpu_test {

// Compaction passes of 7 entries, so keeping most of a long store takes many of them.
inline constexpr int kCompactionEntries = 7;

inline KvTypes own_kv_types(cuda::Precision p)
{
    return p == cuda::Precision::Fp16 ? KvPrecision::F16 : KvPrecision::F32;
}

// What values become once stored as `type`: the CPU's store_values and load_values, in blocks
// of 32 for q8 and q4 (rows are whole blocks, so a run of rows quantizes as its rows do).
inline std::vector<float> as_stored(const std::vector<float>& x, KvPrecision type)
{
    std::vector<float> out(x.size());
    const auto n = static_cast<int64_t>(x.size());
    const auto round_trip = [&](auto* tag) {
        using S = std::remove_pointer_t<decltype(tag)>;
        std::vector<S> stored(x.size() / kValuesPerElement<S>);
        store_values(x.data(), n, stored.data());
        load_values(stored.data(), n, out.data());
    };
    switch (type) {
    case KvPrecision::F32: return x;
    case KvPrecision::F16: round_trip(static_cast<Half*>(nullptr)); break;
    case KvPrecision::Q8: round_trip(static_cast<KvQ8Block*>(nullptr)); break;
    case KvPrecision::Q4: round_trip(static_cast<KvQ4Block*>(nullptr)); break;
    }
    return out;
}

struct FilledStore {
    cuda::WorkStream stream{nullptr};
    cuda::HostUploads uploads{stream};
    cuda::KvMemory memory;
    cuda::CudaKvLayerStore store;
    std::vector<float> keys, values;  // as stored (decoded from the stored types)

    FilledStore(std::mt19937& rng, int kv_dim, cuda::Precision p, int len, int block_entries = 16,
                std::optional<KvTypes> types = {})
        : memory(cuda::KvGeometry{kv_dim, block_entries, types.value_or(own_kv_types(p))}, 4, 8, kCompactionEntries,
                 stream, uploads),
          store(memory)
    {
        const KvTypes stored = memory.geometry().types;
        keys = as_stored(random_floats(rng, size_t(len) * kv_dim), stored.k);
        values = as_stored(random_floats(rng, size_t(len) * kv_dim), stored.v);
        if (len == 0)
            return;  // an empty store (a decode test's one-entry cache before its new row)
        auto dk = upload(keys), dv = upload(values);
        const int first = len / 2;
        for (auto [begin, count] : {std::pair{0, first}, std::pair{first, len - first}}) {
            store.reserve_append(count);
            cuda::store_kv(dk.as<float>() + size_t(begin) * kv_dim, dv.as<float>() + size_t(begin) * kv_dim, count,
                           begin, store.table(), nullptr);
            store.commit_append(count);
        }
    }
};

} // namespace pyramid::gpu_test
