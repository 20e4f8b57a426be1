// Device memory of the CUDA backend, part of test_gpu_kernels: KV compaction returns freed
// blocks to the pool and keeps exactly the chosen entries; the pool takes memory in chunks and
// uses the last of it; hidden-state buffers are recycled; uploads staged through the
// page-locked ring and probe scores downloaded layer by layer arrive intact and in order; and
// running out of device memory is a pyramid::Error the device survives.
#include "memory_tests.h"

#include <algorithm>
#include <memory>

#include "cuda_check.h"
#include "cuda_hidden_states.h"
#include "cuda_kv_layer_store.h"
#include "device_buffer.h"
#include "device_filler.h"
#include "filled_store.h"
#include "host_uploads.h"
#include "kv_block_pool.h"
#include "kv_memory.h"
#include "probe_downloads.h"

using namespace pyramid;
using namespace pyramid::gpu_test;
using cuda::Precision;

namespace {

std::mt19937 rng(20261121);

// A random ascending subset of [0, n), each index kept with probability `keep`.
std::vector<int> random_subset(int n, double keep)
{
    std::bernoulli_distribution d(keep);
    std::vector<int> out;
    for (int i = 0; i < n; ++i)
        if (d(rng))
            out.push_back(i);
    return out;
}


void check_keep(Precision p, int kv_dim, const KvTypes& types)
{
    for (int len : {1, 16, 17, 100, 333})
        for (double fraction : {0.0, 0.3, 0.9, 1.0}) {
            FilledStore filled(rng, kv_dim, p, len, 16, types);
            const size_t in_use_before = filled.memory.pool().blocks_in_use();
            const size_t dropped_before = filled.memory.pool().compaction_entries_dropped();
            const size_t freed_before = filled.memory.pool().compaction_blocks_freed();
            GPU_CHECK(filled.store.blocks_held() == (len + 15) / 16, "blocks for " + std::to_string(len));
            GPU_CHECK(in_use_before == size_t(filled.store.blocks_held()), "pool accounting");

            // Keep a prefix untouched (as the sink tokens are), then a random subset.
            std::vector<int> keep = random_subset(len, fraction);
            if (fraction > 0.0 && len > 4 && fraction < 1.0) {
                keep.erase(std::remove_if(keep.begin(), keep.end(), [](int i) { return i < 4; }), keep.end());
                keep.insert(keep.begin(), {0, 1, 2, 3});
            }
            std::vector<float> keys, values;
            for (int i : keep) {
                keys.insert(keys.end(), filled.keys.begin() + i * kv_dim, filled.keys.begin() + (i + 1) * kv_dim);
                values.insert(values.end(), filled.values.begin() + i * kv_dim,
                              filled.values.begin() + (i + 1) * kv_dim);
            }
            filled.store.keep(keep);
            const std::string what = label("keep len=" + std::to_string(len) + " kept=" +
                                               std::to_string(keep.size()) + " KV " + kv_types_name(types),
                                           p);
            GPU_CHECK(filled.store.size() == int(keep.size()), what);
            GPU_CHECK(filled.store.bytes() == keep.size() * kv_entry_bytes(types, 1, kv_dim), what);
            GPU_CHECK(filled.store.blocks_held() == int(keep.size() + 15) / 16, what + ": blocks held");
            GPU_CHECK(filled.memory.pool().blocks_in_use() == size_t(filled.store.blocks_held()),
                      what + ": freed blocks went back to the pool");
            GPU_CHECK(filled.memory.pool().compaction_entries_dropped() - dropped_before == size_t(len) - keep.size() &&
                          filled.memory.pool().compaction_blocks_freed() - freed_before ==
                              in_use_before - filled.memory.pool().blocks_in_use(),
                      what + ": compaction counted");
            const auto contents = filled.store.download();
            check_close(what + " keys", contents.keys, keys, 0.0, 0.0);
            check_close(what + " values", contents.values, values, 0.0, 0.0);
            // Moved in passes of kCompactionEntries: the scratch holds one pass, the
            // indices (grown by doubling) every entry.
            const size_t scratch_bound = size_t(kCompactionEntries) * filled.memory.geometry().entry_bytes() +
                                         2 * size_t(len) * sizeof(int32_t);
            GPU_CHECK(filled.memory.scratch_bytes() <= scratch_bound,
                      what + ": scratch " + std::to_string(filled.memory.scratch_bytes()) + " > " +
                          std::to_string(scratch_bound));
        }
}

// Entries of the precision's own type (24 values), and q8 and q4 entries moved with their
// scales: rows of 3 blocks (96 values: odd, moved 2 bytes at a time) and of 2 (64: in words).
void keep_compacts_and_frees_blocks()
{
    for (Precision p : kPrecisions) {
        const KvPrecision own = own_kv_types(p).k;
        check_keep(p, 24, own);
        check_keep(p, 96, {KvPrecision::Q8, KvPrecision::Q4});
        check_keep(p, 64, {KvPrecision::Q4, own});
        check_keep(p, 96, {own, KvPrecision::Q8});
    }
}

void uploads_arrive_intact()
{
    // Blocks of 256 bytes, 3 of them: the ring wraps many times, and every host buffer is
    // overwritten as soon as its upload returns. The emulation runs page-locked copies only when
    // the host waits, so a block reused too early would deliver later bytes.
    cuda::WorkStream stream(nullptr);
    cuda::HostUploads uploads(stream, 256, 3);
    std::vector<std::vector<float>> sent;
    std::vector<cuda::DeviceBuffer> received;
    std::vector<float> host;
    for (int i = 0; i < 40; ++i) {
        const size_t count = 1 + size_t(i * 7) % 90;  // up to 360 bytes: some larger than a block
        sent.push_back(random_floats(rng, count));
        received.emplace_back(count * sizeof(float), "upload test");
        host = sent.back();
        uploads.upload(received.back().data(), host.data(), host.size() * sizeof(float), "upload test");
        std::fill(host.begin(), host.end(), std::nanf(""));
    }
    GPU_CHECK(uploads.bytes() <= 3 * 256, std::to_string(uploads.bytes()) + " page-locked bytes");
    for (size_t i = 0; i < sent.size(); ++i)
        check_close("upload " + std::to_string(i), download(received[i].data(), sent[i].size()), sent[i], 0.0, 0.0);
}

void hidden_pool_keeps_one_buffer()
{
    const auto used = [] {
        const cuda::DeviceMemory m = cuda::device_memory();
        return m.total - m.free;
    };
    const size_t before = used();
    constexpr size_t kPrompt = size_t(8) << 20, kLonger = size_t(24) << 20, kRounding = size_t(2) << 20;
    cuda::WorkStream stream(nullptr);
    cuda::HiddenBufferPool pool(stream);
    cuda::DeviceBuffer prompt = pool.take(kPrompt);
    const void* where = prompt.data();
    pool.give(std::move(prompt));
    GPU_CHECK(pool.bytes() == kPrompt, std::to_string(pool.bytes()));
    cuda::DeviceBuffer decode = pool.take(4096);  // a decode step reuses the prompt's buffer
    GPU_CHECK(decode.data() == where && pool.bytes() == 0, "the kept buffer was not reused");
    pool.give(std::move(decode));
    // A longer prompt: the kept buffer is freed before the larger one is allocated.
    cuda::DeviceBuffer longer = pool.take(kLonger);
    GPU_CHECK(used() - before <= kLonger + kRounding,
              std::to_string(used() - before) + " bytes in use for a " + std::to_string(kLonger) + "-byte step");
    pool.give(std::move(longer));
    // Two buffers out at once (the engine never does this) are served; the larger one is kept.
    cuda::DeviceBuffer a = pool.take(1024), b = pool.take(kPrompt);
    GPU_CHECK(a.data() != b.data() && a.bytes() >= 1024 && b.bytes() >= kPrompt, "two buffers out at once");
    pool.give(std::move(a));
    pool.give(std::move(b));
    GPU_CHECK(pool.bytes() == kLonger, std::to_string(pool.bytes()));
}

void blocks_return_to_pool()
{
    cuda::WorkStream stream(nullptr);
    cuda::HostUploads uploads(stream);
    cuda::KvMemory memory(cuda::KvGeometry{32, 16, KvPrecision::F16}, 3, 4, 64, stream, uploads);
    {
        cuda::CudaKvLayerStore a(memory), b(memory);
        a.reserve_append(40);  // 3 blocks: one chunk
        a.commit_append(40);
        b.reserve_append(20);  // 2 more: a second chunk
        b.commit_append(20);
        GPU_CHECK(memory.pool().blocks_in_use() == 5, std::to_string(memory.pool().blocks_in_use()));
        GPU_CHECK(memory.pool().blocks_total() == 6, std::to_string(memory.pool().blocks_total()));
    }
    GPU_CHECK(memory.pool().blocks_in_use() == 0, "after the stores are gone");
    cuda::CudaKvLayerStore c(memory);
    c.reserve_append(90);  // reuses the 6 free blocks without growing
    GPU_CHECK(memory.pool().blocks_total() == 6, "freed blocks are reused");
}

// release_unused frees exactly the chunks none of whose blocks is in use, gives their memory
// back to the device, and leaves the blocks in use where they are: a store's entries survive.
// Blocks of 2 MiB: the driver hands out (and takes back) device memory in 2 MiB pages and
// suballocates smaller allocations, so a smaller chunk would not show in its free count.
void unused_chunks_go_back()
{
    cuda::WorkStream stream(nullptr);
    cuda::HostUploads uploads(stream);
    const cuda::KvGeometry geometry{4096, 128, KvPrecision::F16};
    const int block = geometry.block_entries;
    cuda::KvMemory memory(geometry, 3, 4, 64, stream, uploads);
    cuda::KvBlockPool& pool = memory.pool();
    auto a = std::make_unique<cuda::CudaKvLayerStore>(memory);
    auto b = std::make_unique<cuda::CudaKvLayerStore>(memory);
    cuda::CudaKvLayerStore c(memory);
    a->reserve_append(3 * block);  // 3 blocks: the first chunk
    a->commit_append(3 * block);
    b->reserve_append(3 * block);  // the second chunk
    b->commit_append(3 * block);
    const int len = block + block / 4;  // 2 blocks of the third chunk, with entries
    const std::vector<float> keys = rounded(random_floats(rng, size_t(len) * geometry.kv_dim), Precision::Fp16);
    const std::vector<float> values = rounded(random_floats(rng, size_t(len) * geometry.kv_dim), Precision::Fp16);
    auto dk = upload(keys), dv = upload(values);
    c.reserve_append(len);
    cuda::store_kv(dk.as<float>(), dv.as<float>(), len, 0, c.table(), nullptr);
    c.commit_append(len);
    const size_t chunk_bytes = 3 * geometry.block_bytes();
    GPU_CHECK(pool.blocks_total() == 9 && pool.blocks_in_use() == 8, std::to_string(pool.blocks_in_use()));

    GPU_CHECK(pool.release_unused() == 0, "every chunk has a block in use");
    a.reset();  // the first chunk is all free now; the second keeps b's blocks
    const size_t free_before = cuda::device_memory().free;
    GPU_CHECK(memory.release_cached() >= chunk_bytes, "the first chunk goes back");
    GPU_CHECK(pool.blocks_total() == 6 && pool.blocks_in_use() == 5,
              std::to_string(pool.blocks_total()) + " blocks, " + std::to_string(pool.blocks_in_use()) + " in use");
    GPU_CHECK(cuda::device_memory().free >= free_before + chunk_bytes, "the device has the chunk again");
    const cuda::CudaKvLayerStore::Contents kept = c.download();
    GPU_CHECK(kept.keys == keys && kept.values == values, "the entries of blocks in use are untouched");

    b.reset();
    GPU_CHECK(pool.release_unused() == chunk_bytes && pool.blocks_total() == 3, "the second chunk goes back");
    c.reserve_append(5 * block - len);  // grows again: 1 block free in the third chunk, then a new chunk
    GPU_CHECK(pool.blocks_total() == 6 && pool.blocks_in_use() == 5, "the pool grows again after a release");
}

void pool_uses_the_last_memory()
{
    // Fill the device until less than a 64-block chunk is free: the pool must still hand out
    // the few blocks asked for, and report the device out of memory only past its last byte.
    const size_t block = size_t(1) << 20, chunk_blocks = 64;
    const cuda::DeviceBuffer filler = fill_device(size_t(16) << 20, size_t(8) << 20, 64);
    const size_t free_blocks = cuda::device_memory().free / block;
    std::printf("  %zu MiB filled, %zu MiB free\n", filler.bytes() >> 20, free_blocks);
    if (free_blocks >= chunk_blocks || free_blocks < 4)
        throw Skip{"could not leave between 4 and 64 MiB free (" + std::to_string(free_blocks) + " MiB)"};
    cuda::KvBlockPool pool(block, chunk_blocks);
    std::vector<void*> blocks;
    pool.acquire(3, blocks);
    GPU_CHECK(blocks.size() == 3 && pool.blocks_total() == 3, std::to_string(pool.blocks_total()) + " blocks");
    bool threw = false;
    try {
        pool.acquire(free_blocks + 1, blocks);
    } catch (const cuda::DeviceOutOfMemory& e) {
        threw = true;
        std::printf("  (expected) %s\n", e.what());
    }
    GPU_CHECK(threw && blocks.size() == 3, "asking for more than the device has throws and hands out nothing");
}

void out_of_memory_is_an_error()
{
    cuda::KvBlockPool pool(1u << 20, 1);
    bool threw = false;
    try {
        pool.reserve(size_t(1) << 30);  // a pebibyte
    } catch (const Error& e) {
        threw = true;
        const std::string message = e.what();
        std::printf("  (expected) %s\n", message.c_str());
        GPU_CHECK(message.find("out of memory") != std::string::npos, message);
        GPU_CHECK(message.find("free") != std::string::npos, message);
    }
    GPU_CHECK(threw, "a pebibyte pool request must throw pyramid::Error");
    GPU_CHECK(pool.blocks_total() == 0, "nothing was added");
    pool.reserve(2);  // the device is still usable
    GPU_CHECK(pool.blocks_total() >= 2, "a small request after the failed one");
}

// Scores queued layer after layer from one device buffer that the stream overwrites between
// copies (as the next layer's kernels do) arrive intact, in their pieces, only at deliver() of
// their layer or a later one: layers after it stay unwritten until theirs; slots grow for longer
// caches; dropped copies never reach their vectors.
void probe_downloads_deliver_in_order()
{
    cudaStream_t stream = nullptr;
    cuda::check(cudaStreamCreate(&stream), "cudaStreamCreate");
    {
        cuda::WorkStream work(stream);
        cuda::ProbeDownloads downloads(work);
        for (int round = 0; round < 3; ++round) {
            const int layers = 5 + round;
            std::vector<std::vector<float>> sent;
            std::vector<std::vector<std::vector<float>>> received(static_cast<size_t>(layers));
            cuda::DeviceBuffer device(sizeof(float) * 4096, "probe test");
            for (int l = 0; l < layers; ++l) {
                const int a = 1 + (l * 37 + round * 101) % 700, b = (l * 53) % 300;  // b = 0: an empty piece
                sent.push_back(random_floats(rng, static_cast<size_t>(a + b)));
                cuda::check(cudaMemcpyAsync(device.data(), sent.back().data(), sent.back().size() * sizeof(float),
                                      cudaMemcpyHostToDevice, stream),
                      "upload");
                cuda::check(cudaStreamSynchronize(stream), "upload");
                received[static_cast<size_t>(l)].assign(2, std::vector<float>{-7.0f});
                auto& out = received[static_cast<size_t>(l)];
                downloads.queue(l, device.as<float>(), a + b, {{&out[0], 0, a}, {&out[1], a, b}});
                // The next layer's work overwrites the buffer after the copy was queued.
                cuda::check(cudaMemsetAsync(device.data(), 0xff, device.bytes(), stream), "overwrite");
                GPU_CHECK(out[0] == std::vector<float>{-7.0f}, "nothing is written before deliver()");
            }
            const int middle = layers / 2;
            downloads.deliver(middle);
            for (int l = middle + 1; l < layers; ++l)
                GPU_CHECK(received[static_cast<size_t>(l)][0] == std::vector<float>{-7.0f},
                          "layer " + std::to_string(l) + " is not delivered with layer " + std::to_string(middle));
            downloads.deliver(middle);  // nothing of it is waiting any more
            downloads.deliver(layers - 1);
            for (int l = 0; l < layers; ++l) {
                const auto& in = sent[static_cast<size_t>(l)];
                const auto& out = received[static_cast<size_t>(l)];
                const size_t a = out[0].size();
                GPU_CHECK(out[0] == std::vector<float>(in.begin(), in.begin() + static_cast<ptrdiff_t>(a)),
                          "round " + std::to_string(round) + " layer " + std::to_string(l) + " first piece");
                GPU_CHECK(out[1] == std::vector<float>(in.begin() + static_cast<ptrdiff_t>(a), in.end()),
                          "round " + std::to_string(round) + " layer " + std::to_string(l) + " second piece");
            }
        }
        cuda::DeviceBuffer device = upload(random_floats(rng, 64));
        std::vector<float> dropped{-7.0f};
        downloads.queue(0, device.as<float>(), 64, {{&dropped, 0, 64}});
        downloads.drop();
        downloads.deliver(0);
        GPU_CHECK(dropped == std::vector<float>{-7.0f}, "a dropped copy is never delivered");
    }
    cuda::check(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

// In a recording (a decode step as a CUDA graph), the first deliver() launches it and waits for
// its layer's copy alone, through the event node the graph holds; once the slots exist (the
// first step allocates them, which launches its recording early) each step's graph updates the
// last one, and every step's scores arrive.
void probe_downloads_in_a_recording()
{
    cudaStream_t stream = nullptr;
    cuda::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    {
        cuda::WorkStream work(stream, true);
        cuda::ProbeDownloads downloads(work);
        const int layers = 4, entries = 300;
        cuda::DeviceBuffer scratch(sizeof(float) * entries, "probe test");
        cuda::WorkStream::GraphCounts before;
        for (int step = 0; step < 4; ++step) {
            if (step == 2)
                before = work.graph_counts();
            std::vector<cuda::DeviceBuffer> sources;
            std::vector<std::vector<float>> sent;
            for (int l = 0; l < layers; ++l) {
                sent.push_back(random_floats(rng, entries));
                sources.push_back(upload(sent.back()));
            }
            std::vector<std::vector<float>> received(layers, std::vector<float>{-7.0f});
            work.begin_recording();
            GPU_CHECK(work.recording(), "stream capture began");
            for (int l = 0; l < layers; ++l) {
                // A layer's kernels write the scores; the next layer's overwrite them.
                cuda::check(cudaMemcpyAsync(scratch.data(), sources[static_cast<size_t>(l)].data(), scratch.bytes(),
                                            cudaMemcpyDeviceToDevice, stream),
                            "scores");
                downloads.queue(l, scratch.as<float>(), entries, {{&received[static_cast<size_t>(l)], 0, entries}});
            }
            cuda::check(cudaMemsetAsync(scratch.data(), 0xff, scratch.bytes(), stream), "overwrite");
            downloads.deliver(0);
            GPU_CHECK(!work.recording(), "waiting launched the recording");
            GPU_CHECK(received[0] == sent[0], "step " + std::to_string(step) + " layer 0");
            GPU_CHECK(received[1] == std::vector<float>{-7.0f}, "layer 1 waits for its own deliver()");
            for (int l = 1; l < layers; ++l) {
                downloads.deliver(l);
                GPU_CHECK(received[static_cast<size_t>(l)] == sent[static_cast<size_t>(l)],
                          "step " + std::to_string(step) + " layer " + std::to_string(l));
            }
        }
        const cuda::WorkStream::GraphCounts after = work.graph_counts();
        GPU_CHECK(after.launched - before.launched == 2 && after.updated - before.updated == 2,
                  "the last 2 steps: " + std::to_string(after.launched - before.launched) + " launched, " +
                      std::to_string(after.updated - before.updated) + " updated");
    }
    cuda::check(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

} // namespace

std::vector<TestCase> memory_tests()
{
    return {
        {"keep_compacts_and_frees_blocks", keep_compacts_and_frees_blocks},
        {"hidden_pool_keeps_one_buffer", hidden_pool_keeps_one_buffer},
        {"uploads_arrive_intact", uploads_arrive_intact},
        {"blocks_return_to_pool", blocks_return_to_pool},
        {"unused_chunks_go_back", unused_chunks_go_back},
        {"pool_uses_the_last_memory", pool_uses_the_last_memory},
        {"out_of_memory_is_an_error", out_of_memory_is_an_error},
        {"probe_downloads_deliver_in_order", probe_downloads_deliver_in_order},
        {"probe_downloads_in_a_recording", probe_downloads_in_a_recording},
    };
}
