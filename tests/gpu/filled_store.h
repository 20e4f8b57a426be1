#pragma once
// A layer store filled with random entries, for the kernel tests: its own pool, `len` entries
// appended in two steps (as prefill then decode do), and a host copy of what was stored. Each
// test file passes its own generator, so its inputs stay deterministic whatever the others do.
#include <random>
#include <utility>
#include <vector>

#include "cuda_kv_layer_store.h"
#include "host_uploads.h"
#include "gpu_test.h"
#include "kv_memory.h"
#include "kv_ops.h"

namespace pyramid::gpu_test {

// Compaction passes of 7 entries, so keeping most of a long store takes many of them.
inline constexpr int kCompactionEntries = 7;

struct FilledStore {
    cuda::WorkStream stream{nullptr};
    cuda::HostUploads uploads{stream};
    cuda::KvMemory memory;
    cuda::CudaKvLayerStore store;
    std::vector<float> keys, values;  // as stored (rounded to the precision)

    FilledStore(std::mt19937& rng, int kv_dim, cuda::Precision p, int len, int block_entries = 16)
        : memory(cuda::KvGeometry{kv_dim, block_entries, p}, 4, 8, kCompactionEntries, stream, uploads), store(memory)
    {
        keys = rounded(random_floats(rng, size_t(len) * kv_dim), p);
        values = rounded(random_floats(rng, size_t(len) * kv_dim), p);
        if (len == 0)
            return;  // an empty store (a decode test's one-entry cache before its new row)
        auto dk = upload(keys), dv = upload(values);
        const int first = len / 2;
        for (auto [begin, count] : {std::pair{0, first}, std::pair{first, len - first}}) {
            store.reserve_append(count);
            cuda::store_kv(dk.as<float>() + size_t(begin) * kv_dim, dv.as<float>() + size_t(begin) * kv_dim, count,
                           begin, store.table(), p, nullptr);
            store.commit_append(count);
        }
    }
};

} // namespace pyramid::gpu_test
