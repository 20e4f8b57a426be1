// pyramid-attention-bench: the CPU backend's attention over the same KV cache entries stored as
// float32, fp16, q8 and q4 (kv_entry_types.h), side by side in one process (the four alternate
// within each repeat, so a busy machine slows them alike), all kept head by head as the backend
// keeps them. Shapes default to LLaMA-2-7B's (32 heads of 128); queries are a decode step's
// single row or a prompt slice's rows (layer_slices.h), attending causally to the cache's last
// entries. Before timing, each output is compared with float32's: attention over stored entries
// is float32 attention over the decoded entries, so the table shows how far storing moved it.
// --copies N keeps N caches of each type and times them in turn, as a decode step's layers
// read theirs: with N copies larger than the last-level cache the entries come from memory, as
// in a model, where one cache alone stays in that cache between calls.
//
// Prints a Markdown table on stdout; --json writes the same numbers. Exit codes: 0 done, 2 bad
// options. PYRAMID_CPU_KERNELS=generic measures the portable kernels (kernel_config.h).
#include <chrono>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/cpu_cores.h"
#include "backend/cpu_kernels.h"
#include "backend/backend_environment.h"
#include "backend/kernel_config.h"
#include "backend/kv_entry_types.h"
#include "command_line.h"
#include "eval/replay.h"
#include "util/float16.h"
#include "util/measurement.h"

namespace {

using namespace pyramid;
using Clock = std::chrono::steady_clock;

// The stored types, in the order of the table's columns.
constexpr const char* kTypeNames[] = {"f32", "f16", "q8", "q4"};
constexpr int kTypes = 4;

struct Row {
    int length = 0, queries = 0;
    double ms[kTypes] = {};          // medians
    double difference[kTypes] = {};  // relative_error against float32
};

// Keys or values kept head by head, as the CPU backend keeps its cache.
template <typename Stored>
struct HeadRows {
    std::vector<std::vector<Stored>> rows;  // one per KV head
    std::vector<const Stored*> heads;
    int64_t stride = 0;  // elements a row
};

template <typename Stored>
HeadRows<Stored> head_rows(const std::vector<float>& packed, int len, const cpu::AttentionShape& shape)
{
    HeadRows<Stored> out;
    out.stride = shape.head_dim / kValuesPerElement<Stored>;
    out.rows.resize(static_cast<size_t>(shape.n_kv_heads));
    for (int g = 0; g < shape.n_kv_heads; ++g) {
        auto& rows = out.rows[static_cast<size_t>(g)];
        rows.resize(static_cast<size_t>(len * out.stride));
        for (int j = 0; j < len; ++j)
            store_values(packed.data() + (static_cast<size_t>(j) * shape.n_kv_heads + g) * shape.head_dim,
                         shape.head_dim, rows.data() + j * out.stride);
        out.heads.push_back(rows.data());
    }
    return out;
}

// One stored type's keys and values, timed.
template <typename Stored>
struct StoredCache {
    HeadRows<Stored> k, v;

    StoredCache(const std::vector<float>& keys, const std::vector<float>& values, int len,
                const cpu::AttentionShape& shape)
        : k(head_rows<Stored>(keys, len, shape)), v(head_rows<Stored>(values, len, shape))
    {
    }
    double seconds(const std::vector<float>& q, int n_q, int len, const cpu::AttentionShape& shape,
                   std::vector<float>& out, cpu::KernelIsa isa, WorkerPool& workers) const
    {
        const auto t0 = Clock::now();
        cpu::attention(q.data(), n_q, cpu::CacheHeads<Stored>{k.heads, k.stride},
                       cpu::CacheHeads<Stored>{v.heads, v.stride}, len, shape, out.data(), nullptr, nullptr, isa,
                       &workers);
        return std::chrono::duration<double>(Clock::now() - t0).count();
    }
};

// `copies` caches of one stored type, each with entries of its own.
template <typename Stored>
std::vector<StoredCache<Stored>> stored_caches(int copies, const std::vector<float>& keys,
                                               const std::vector<float>& values, int len,
                                               const cpu::AttentionShape& shape)
{
    std::vector<StoredCache<Stored>> caches;
    caches.reserve(static_cast<size_t>(copies));
    for (int c = 0; c < copies; ++c)
        caches.emplace_back(keys, values, len, shape);
    return caches;
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app{"Measure the CPU attention over a KV cache in float32, fp16, q8 and q4.", "pyramid-attention-bench"};
    cpu::AttentionShape shape{32, 32, 128};
    std::vector<int> lengths{512, 2048, 4096}, query_counts{1, 256};
    int repeats = 5, copies = 1;
    std::string json_path;
    app.add_option("--heads", shape.n_heads, "query heads")->check(pyramid::whole_number(1, 256))->capture_default_str();
    app.add_option("--kv-heads", shape.n_kv_heads, "key/value heads (dividing --heads)")
        ->check(pyramid::whole_number(1, 256))
        ->capture_default_str();
    app.add_option("--head-dim", shape.head_dim, "values per head")->check(pyramid::whole_number(1, 1024))->capture_default_str();
    app.add_option("--lengths", lengths, "cache entries, e.g. 512,4096")
        ->delimiter(',')
        ->check(pyramid::whole_number(1, 1 << 17))
        ->capture_default_str();
    app.add_option("--queries", query_counts, "new rows per call (1 = decode, more = a prompt slice)")
        ->delimiter(',')
        ->check(pyramid::whole_number(1, 4096))
        ->capture_default_str();
    app.add_option("--repeats", repeats, "timed calls of each variant (the median is reported)")
        ->check(pyramid::whole_number(1, 1000))
        ->capture_default_str();
    app.add_option("--copies", copies, "caches of each type, timed in turn (a model's layers; 1 = one, cache-resident)")
        ->check(pyramid::whole_number(1, 1024))
        ->capture_default_str();
    app.add_option("--json", json_path, "also write the results here");
    if (const auto status = parse_command_line(app, argc, argv, "pyramid-attention-bench"))
        return *status;
    if (shape.n_heads % shape.n_kv_heads != 0) {
        fmt::print(stderr, "pyramid-attention-bench: --kv-heads must divide --heads\n");
        return 2;
    }
    if (shape.head_dim % kKvBlockValues != 0) {
        fmt::print(stderr, "pyramid-attention-bench: --head-dim must be a multiple of {} (q8 and q4 blocks)\n",
                   kKvBlockValues);
        return 2;
    }

    std::mt19937 rng(1);
    std::normal_distribution<float> value(0.0f, 1.0f);
    const int q_width = shape.n_heads * shape.head_dim, kv_width = shape.n_kv_heads * shape.head_dim;
    const cpu::KernelIsa isa = kernel_config_from_environment().isa;
    // The threads a CPU backend would get here (OMP_NUM_THREADS where set).
    WorkerPool workers(cpu_threads_or_default(with_environment({}).cpu_threads));
    std::vector<Row> results;
    for (int len : lengths) {
        std::vector<float> k(static_cast<size_t>(len) * kv_width), v(k.size());
        for (float& x : k)
            x = value(rng);
        for (float& x : v)
            x = value(rng);
        const auto f32 = stored_caches<float>(copies, k, v, len, shape);
        const auto f16 = stored_caches<Half>(copies, k, v, len, shape);
        const auto q8 = stored_caches<KvQ8Block>(copies, k, v, len, shape);
        const auto q4 = stored_caches<KvQ4Block>(copies, k, v, len, shape);
        for (int n_q : query_counts) {
            if (n_q > len)
                continue;
            std::vector<float> q(static_cast<size_t>(n_q) * q_width);
            for (float& x : q)
                x = value(rng);
            std::vector<std::vector<float>> out(kTypes, std::vector<float>(q.size()));
            // Call r of a type reads copy r % copies.
            const auto run = [&](int type, int r) {
                const auto c = static_cast<size_t>(r % copies);
                switch (type) {
                case 0: return f32[c].seconds(q, n_q, len, shape, out[0], isa, workers);
                case 1: return f16[c].seconds(q, n_q, len, shape, out[1], isa, workers);
                case 2: return q8[c].seconds(q, n_q, len, shape, out[2], isa, workers);
                default: return q4[c].seconds(q, n_q, len, shape, out[3], isa, workers);
                }
            };
            Row row{len, n_q};
            for (int t = 0; t < kTypes; ++t)  // warm-up, and the comparison
                run(t, 0);
            for (int t = 0; t < kTypes; ++t)
                row.difference[t] = relative_error(out[static_cast<size_t>(t)], out[0]);
            std::vector<std::vector<double>> times(kTypes);
            for (int r = 0; r < repeats; ++r)
                for (int t = 0; t < kTypes; ++t)
                    times[static_cast<size_t>(t)].push_back(run(t, r));
            for (int t = 0; t < kTypes; ++t)
                row.ms[t] = 1e3 * median(times[static_cast<size_t>(t)]);
            results.push_back(row);
        }
    }

    fmt::print("Machine: {}, {} threads; {} kernels; date: {}\n", cpu_model_name(), workers.threads(),
               cpu::kernel_isa_name(isa),
               local_date());
    fmt::print("{} heads, {} KV heads of {}; median of {} calls of each variant, alternating, over {} cop{} of "
               "each cache.\n\n",
               shape.n_heads, shape.n_kv_heads, shape.head_dim, repeats, copies, copies == 1 ? "y" : "ies");
    fmt::print("| cache entries | queries | KV MiB f32 | f32 ms | f16 ms | q8 ms | q4 ms | q8 / f16 time | q4 / f16 time "
               "| f16 vs f32 | q8 vs f32 | q4 vs f32 |\n"
               "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    nlohmann::json rows_json = nlohmann::json::array();
    for (const Row& r : results) {
        const double mib = 2.0 * r.length * kv_width * sizeof(float) / (1 << 20);
        fmt::print("| {} | {} | {:.1f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.2f} | {:.2f} | {:.1e} | {:.1e} | {:.1e} |\n",
                   r.length, r.queries, mib, r.ms[0], r.ms[1], r.ms[2], r.ms[3], r.ms[2] / r.ms[1], r.ms[3] / r.ms[1],
                   r.difference[1], r.difference[2], r.difference[3]);
        nlohmann::json row = {{"cache_entries", r.length}, {"queries", r.queries}};
        for (int t = 0; t < kTypes; ++t) {
            row[std::string(kTypeNames[t]) + "_ms"] = r.ms[t];
            if (t > 0)
                row[std::string(kTypeNames[t]) + "_relative_difference"] = r.difference[t];
        }
        rows_json.push_back(row);
    }
    if (!json_path.empty()) {
        const nlohmann::json doc = {{"tool", "pyramid-attention-bench"},
                                    {"cpu", cpu_model_name()},
                                    {"threads", workers.threads()},
                                    {"kernels", cpu::kernel_isa_name(isa)},
                                    {"date", local_date()},
                                    {"heads", shape.n_heads},
                                    {"kv_heads", shape.n_kv_heads},
                                    {"head_dim", shape.head_dim},
                                    {"repeats", repeats},
                                    {"copies", copies},
                                    {"results", rows_json}};
        std::ofstream(json_path) << doc.dump(2) << "\n";
    }
    return 0;
}
