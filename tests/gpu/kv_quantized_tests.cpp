// KV entries stored in q8 and q4 on the GPU (kv_block_table.h, the CPU's layout of
// backend/kv_entry_layout.h), part of test_gpu_kernels. Keys and values each in q8, q4 or the
// precision's own type; rows of 1, 2, 3, 4 and 8 blocks a head; pool blocks of 16 entries and of 5
// (whose key rows are padded before the values). Decode attention over quantized entries is in
// decode_attention_tests.cpp, compaction in memory_tests.cpp.
//
// - store_kv_quantizes_as_the_cpu: the stored bytes of a row are store_values' bytes (scale and
//   codes), including an all-zero block and a block with an outlier; every entry decodes to the
//   CPU's floats (tolerance 0).
// - attention_over_quantized_entries: attention() and attention_probe() (whole, and added in
//   two chunks) against cpu::attention over the same decoded entries. Scale * code is exact in
//   float32, so only summation order differs (and, under fp16 at head_dim 64 and 128, the
//   tensor cores' fp16 probabilities and values): the tolerances of the fp32 and fp16 entries'
//   test (attention_and_probe_match): outputs fp32 1e-5 absolute + 1e-4 relative, fp16 one half
//   step (2^-11) absolute + 1e-4 relative; probes 1e-5 of the largest + 1e-4 relative.
// - shift_keys_on_quantized_keys: each key decoded, rotated and quantized again. Against the
//   CPU's rotate_keys (decode, cpu::rope, store_values) a value may differ by one step of its
//   block (largest magnitude / largest code) where the two rotations' last bits put it on
//   either side of a rounding boundary; against the exactly rotated decoded key each value is
//   within half a step (+1e-5 for the rotations' rounding). Values are untouched.
#include "kv_quantized_tests.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>

#include "attention_checks.h"
#include "attention_ops.h"
#include "backend/cpu_kernels.h"
#include "backend/kv_entry_types.h"
#include "filled_store.h"
#include "kv_ops.h"

using namespace pyramid;
using namespace pyramid::gpu_test;
using cuda::Precision;

namespace {

std::mt19937 rng(20261128);

// Keys and values in q8 or q4, each or both, the other in the precision's own type.
std::vector<KvTypes> quantized_types(Precision p)
{
    const KvPrecision own = own_kv_types(p).k;
    return {KvTypes{KvPrecision::Q8}, KvTypes{KvPrecision::Q4}, KvTypes{KvPrecision::Q8, own},
            KvTypes{own, KvPrecision::Q4}, KvTypes{KvPrecision::Q4, KvPrecision::Q8}};
}

std::string describe(const std::string& what, Precision p, const KvTypes& types)
{
    return what + " [" + cuda::precision_name(p) + ", KV " + kv_types_name(types) + "]";
}

// `bytes` bytes at `offset` of the first block of a store's table.
std::vector<std::byte> first_block_bytes(const cuda::KvBlockTable& table, size_t offset, size_t bytes)
{
    gpu_test::sync();
    void* block = nullptr;
    cudaMemcpy(&block, table.blocks, sizeof block, cudaMemcpyDeviceToHost);
    std::vector<std::byte> out(bytes);
    cudaMemcpy(out.data(), static_cast<std::byte*>(block) + offset, bytes, cudaMemcpyDeviceToHost);
    gpu_test::sync();
    return out;
}

// The bytes store_values gives `values` stored as `type`.
std::vector<std::byte> cpu_bytes(const std::vector<float>& values, KvPrecision type)
{
    const size_t bytes = kv_row_bytes(type, int(values.size()));
    std::vector<std::byte> out(bytes);
    const auto n = int64_t(values.size());
    switch (type) {
    case KvPrecision::F32: std::memcpy(out.data(), values.data(), bytes); break;
    case KvPrecision::F16: store_values(values.data(), n, reinterpret_cast<Half*>(out.data())); break;
    case KvPrecision::Q8: store_values(values.data(), n, reinterpret_cast<KvQ8Block*>(out.data())); break;
    case KvPrecision::Q4: store_values(values.data(), n, reinterpret_cast<KvQ4Block*>(out.data())); break;
    }
    return out;
}

void store_kv_quantizes_as_the_cpu()
{
    for (Precision p : kPrecisions)
        for (const KvTypes& types : quantized_types(p))
            for (int kv_dim : {96, 128})
                for (int block_entries : {16, 5}) {
                    const int len = 37;
                    std::vector<float> k = random_floats(rng, size_t(len) * kv_dim, -3.0f, 3.0f);
                    std::vector<float> v = random_floats(rng, size_t(len) * kv_dim, -3.0f, 3.0f);
                    std::fill_n(k.begin() + 32, 32, 0.0f);  // an all-zero block in entry 0's key
                    v[5] = 1000.0f;                         // an outlier in entry 0's value
                    cuda::WorkStream stream(nullptr);
                    cuda::HostUploads uploads(stream);
                    cuda::KvMemory memory(cuda::KvGeometry{kv_dim, block_entries, types}, 4, 8, kCompactionEntries,
                                          stream, uploads);
                    cuda::CudaKvLayerStore store(memory);
                    const auto dk = upload(k), dv = upload(v);
                    store.reserve_append(len);
                    cuda::store_kv(dk.as<float>(), dv.as<float>(), len, 0, store.table(), nullptr);
                    store.commit_append(len);

                    const std::string what = describe("store_kv kv_dim=" + std::to_string(kv_dim) + " blocks of " +
                                                          std::to_string(block_entries),
                                                      p, types);
                    const cuda::KvGeometry& g = memory.geometry();
                    GPU_CHECK(g.entry_bytes() == kv_entry_bytes(types, 1, kv_dim), what + ": entry bytes");
                    GPU_CHECK(store.bytes() == size_t(len) * kv_entry_bytes(types, 1, kv_dim), what + ": store bytes");
                    const std::vector<float> first_key(k.begin(), k.begin() + kv_dim);
                    const std::vector<float> first_value(v.begin(), v.begin() + kv_dim);
                    GPU_CHECK(first_block_bytes(store.table(), 0, g.key_row_bytes()) == cpu_bytes(first_key, types.k),
                              what + ": entry 0's key bytes");
                    GPU_CHECK(first_block_bytes(store.table(), g.value_offset(), g.value_row_bytes()) ==
                                  cpu_bytes(first_value, types.v),
                              what + ": entry 0's value bytes");
                    const auto contents = store.download();
                    check_close(what + " keys", contents.keys, as_stored(k, types.k), 0.0, 0.0);
                    check_close(what + " values", contents.values, as_stored(v, types.v), 0.0, 0.0);
                }
}

void attention_over_quantized_entries()
{
    struct Shape {
        int heads, kv_heads, hd;
    };
    const Shape shapes[] = {{8, 4, 32}, {4, 1, 64}, {6, 3, 96}, {8, 8, 128}, {6, 2, 256}};
    int variant = 0;
    for (Precision p : kPrecisions)
        for (const KvTypes& types : quantized_types(p))
            for (const Shape& s : shapes)
                for (int len : {1, 17, 50, 300}) {
                    // One row, a third of the cache, all of it, in turn.
                    const int n = std::min(len, std::array{1, len / 3 + 1, len}[size_t(variant++ % 3)]);
                    FilledStore filled(rng, s.kv_heads * s.hd, p, len, variant % 2 ? 16 : 5, types);
                    check_attention_against_cpu(
                        rng, filled, len, n, {s.heads, s.kv_heads, s.hd}, p,
                        describe("heads=" + std::to_string(s.heads) + "/" + std::to_string(s.kv_heads) +
                                     " hd=" + std::to_string(s.hd) + " len=" + std::to_string(len) +
                                     " n=" + std::to_string(n),
                                 p, types));
                }
    // A head that is not whole blocks is refused, with the reason.
    FilledStore filled(rng, 64, Precision::Fp16, 4);
    cuda::KvBlockTable table = filled.store.table();
    table.format.key_type = KvPrecision::Q8;
    bool refused = false;
    try {
        cuda::attention(nullptr, 1, table, 4, {4, 4, 16}, Precision::Fp16, nullptr, nullptr, nullptr);
    } catch (const Error& e) {
        refused = std::string(e.what()).find("multiple of 32") != std::string::npos;
    }
    GPU_CHECK(refused, "q8 keys of 16-value heads are refused");
}

void shift_keys_on_quantized_keys()
{
    const int len = 37;
    size_t values = 0, differing = 0;
    for (Precision p : kPrecisions)
        for (KvPrecision key_type : {KvPrecision::Q8, KvPrecision::Q4})
            for (int hd : {32, 64, 128})
                for (RopeLayout layout : {RopeLayout::Interleaved, RopeLayout::RotateHalf}) {
                    const int kv_heads = 2, kv_dim = kv_heads * hd;
                    const KvTypes types{key_type, own_kv_types(p).v};
                    FilledStore filled(rng, kv_dim, p, len, 16, types);
                    std::vector<int32_t> shifts(static_cast<size_t>(len));
                    std::uniform_int_distribution<int32_t> d(-300, 300);
                    for (int32_t& s : shifts)
                        s = d(rng);
                    std::vector<float> rotated = filled.keys;  // decoded, then rotated in float32
                    cpu::rope(rotated.data(), len, kv_heads, hd, shifts, 10000.0f, layout);
                    const std::vector<float> expected = as_stored(rotated, key_type);
                    const int32_t* device_shifts = filled.memory.upload_entry_ints(shifts);
                    cuda::shift_keys(filled.store.table(), len, kv_heads, hd, device_shifts, 10000.0f, layout, nullptr);
                    const auto contents = filled.store.download();

                    const std::string what = describe("shift_keys hd=" + std::to_string(hd) +
                                                          (layout == RopeLayout::Interleaved ? " interleaved"
                                                                                             : " rotate-half"),
                                                      p, types);
                    const float max_code = key_type == KvPrecision::Q8 ? kKvQ8MaxCode : kKvQ4MaxCode;
                    size_t worse = 0;
                    for (size_t b = 0; b < rotated.size() / kKvBlockValues; ++b) {
                        float largest = 0.0f;
                        for (int i = 0; i < kKvBlockValues; ++i)
                            largest = std::max(largest, std::fabs(rotated[b * kKvBlockValues + i]));
                        const double step = largest / max_code * (1.0 + 2e-3);  // the fp16 scale's rounding
                        for (int i = 0; i < kKvBlockValues; ++i) {
                            const size_t at = b * kKvBlockValues + i;
                            const double got = contents.keys[at];
                            worse += !(std::fabs(got - expected[at]) <= step + 1e-6) ||
                                     !(std::fabs(got - rotated[at]) <= 0.5 * step + 1e-5);
                            differing += got != expected[at];
                            ++values;
                        }
                    }
                    GPU_CHECK(worse == 0, what + ": " + std::to_string(worse) + " values beyond a step of the CPU's " +
                                              "or half a step of the rotated key");
                    check_close(what + " leaves values", contents.values, filled.values, 0.0, 0.0);
                }
    std::printf("  shift_keys: %zu of %zu re-quantized key values differ from the CPU's (by a step)\n", differing,
                values);
}

} // namespace

std::vector<TestCase> kv_quantized_tests()
{
    return {
        {"store_kv_quantizes_as_the_cpu", store_kv_quantizes_as_the_cpu},
        {"attention_over_quantized_entries", attention_over_quantized_entries},
        {"shift_keys_on_quantized_keys", shift_keys_on_quantized_keys},
    };
}
