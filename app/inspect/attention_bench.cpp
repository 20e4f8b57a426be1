// pyramid-attention-bench: the CPU backend's attention over a float32 and over an fp16 KV cache
// of the same entries, side by side in one process (the two alternate within each repeat, so a
// busy machine slows both alike), both kept head by head as the backend keeps them. Shapes
// default to LLaMA-2-7B's (32 heads of 128); queries are a decode step's single row or a prompt
// slice's rows (layer_slices.h), attending causally to the cache's last entries. Before timing,
// the two outputs are compared: fp16 attention must be float32 attention over the rounded
// entries, so the table shows how far rounding moved it.
//
// Prints a Markdown table on stdout; --json writes the same numbers. Exit codes: 0 done, 2 bad
// options. PYRAMID_CPU_KERNELS=generic measures the portable fp16 kernels (kernel_config.h).
#include <chrono>
#include <fstream>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <omp.h>

#include "backend/cpu_kernels.h"
#include "backend/kernel_config.h"
#include "command_line.h"
#include "eval/replay.h"
#include "util/float16.h"
#include "util/measurement.h"

namespace {

using namespace pyramid;
using Clock = std::chrono::steady_clock;

struct Row {
    int length = 0, queries = 0;
    double f32_ms = 0, f16_ms = 0;  // medians
    double difference = 0;          // max |f16 - f32| / max |f32|
};

// Keys or values kept head by head, as the CPU backend keeps its cache.
template <typename Stored>
struct HeadRows {
    std::vector<std::vector<Stored>> rows;  // one per KV head
    std::vector<const Stored*> heads;
};

template <typename Stored>
HeadRows<Stored> head_rows(const std::vector<float>& packed, int len, const cpu::AttentionShape& shape)
{
    HeadRows<Stored> out;
    out.rows.resize(static_cast<size_t>(shape.n_kv_heads));
    for (int g = 0; g < shape.n_kv_heads; ++g) {
        auto& rows = out.rows[static_cast<size_t>(g)];
        for (int j = 0; j < len; ++j)
            for (int d = 0; d < shape.head_dim; ++d) {
                const float x = packed[(static_cast<size_t>(j) * shape.n_kv_heads + g) * shape.head_dim + d];
                if constexpr (std::is_same_v<Stored, Half>)
                    rows.push_back(to_half(x));
                else
                    rows.push_back(x);
            }
        out.heads.push_back(rows.data());
    }
    return out;
}

template <typename Stored>
double seconds_of(const std::vector<float>& q, int n_q, const HeadRows<Stored>& k, const HeadRows<Stored>& v,
                  int len, const cpu::AttentionShape& shape, std::vector<float>& out)
{
    const auto t0 = Clock::now();
    cpu::attention(q.data(), n_q, cpu::CacheHeads<Stored>{k.heads, shape.head_dim},
                   cpu::CacheHeads<Stored>{v.heads, shape.head_dim}, len, shape, out.data(), nullptr, nullptr);
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app{"Measure the CPU attention over a float32 against an fp16 KV cache.", "pyramid-attention-bench"};
    cpu::AttentionShape shape{32, 32, 128};
    std::vector<int> lengths{512, 2048, 4096}, query_counts{1, 256};
    int repeats = 5;
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
    app.add_option("--json", json_path, "also write the results here");
    if (const auto status = parse_command_line(app, argc, argv, "pyramid-attention-bench"))
        return *status;
    if (shape.n_heads % shape.n_kv_heads != 0) {
        fmt::print(stderr, "pyramid-attention-bench: --kv-heads must divide --heads\n");
        return 2;
    }

    std::mt19937 rng(1);
    std::normal_distribution<float> value(0.0f, 1.0f);
    const int q_width = shape.n_heads * shape.head_dim, kv_width = shape.n_kv_heads * shape.head_dim;
    std::vector<Row> results;
    for (int len : lengths) {
        std::vector<float> k(static_cast<size_t>(len) * kv_width), v(k.size());
        for (float& x : k)
            x = value(rng);
        for (float& x : v)
            x = value(rng);
        const auto k32 = head_rows<float>(k, len, shape), v32 = head_rows<float>(v, len, shape);
        const auto k16 = head_rows<Half>(k, len, shape), v16 = head_rows<Half>(v, len, shape);
        for (int n_q : query_counts) {
            if (n_q > len)
                continue;
            std::vector<float> q(static_cast<size_t>(n_q) * q_width);
            for (float& x : q)
                x = value(rng);
            std::vector<float> out32(q.size()), out16(q.size());
            seconds_of(q, n_q, k32, v32, len, shape, out32);  // warm-up, and the comparison
            seconds_of(q, n_q, k16, v16, len, shape, out16);
            Row row{len, n_q};
            row.difference = relative_error(out16, out32);
            std::vector<double> f32_times, f16_times;
            for (int r = 0; r < repeats; ++r) {
                f32_times.push_back(seconds_of(q, n_q, k32, v32, len, shape, out32));
                f16_times.push_back(seconds_of(q, n_q, k16, v16, len, shape, out16));
            }
            row.f32_ms = 1e3 * median(f32_times);
            row.f16_ms = 1e3 * median(f16_times);
            results.push_back(row);
        }
    }

    const std::string_view isa = cpu::kernel_isa_name(cpu::active_kernel_config().isa);
    fmt::print("Machine: {}, {} OpenMP threads; {} kernels; date: {}\n", cpu_model_name(), omp_get_max_threads(), isa,
               local_date());
    fmt::print("{} heads, {} KV heads of {}; median of {} calls of each variant, alternating.\n\n", shape.n_heads,
               shape.n_kv_heads, shape.head_dim, repeats);
    fmt::print("| cache entries | queries | KV MiB f32 | f32 ms | f16 ms | f16 / f32 time | f16 vs f32 |\n"
               "|---:|---:|---:|---:|---:|---:|---:|\n");
    nlohmann::json rows_json = nlohmann::json::array();
    for (const Row& r : results) {
        const double mib = 2.0 * r.length * kv_width * sizeof(float) / (1 << 20);
        fmt::print("| {} | {} | {:.1f} | {:.3f} | {:.3f} | {:.2f} | {:.1e} |\n", r.length, r.queries, mib, r.f32_ms,
                   r.f16_ms, r.f16_ms / r.f32_ms, r.difference);
        rows_json.push_back({{"cache_entries", r.length},
                             {"queries", r.queries},
                             {"f32_ms", r.f32_ms},
                             {"f16_ms", r.f16_ms},
                             {"relative_difference", r.difference}});
    }
    if (!json_path.empty()) {
        const nlohmann::json doc = {{"tool", "pyramid-attention-bench"},
                                    {"cpu", cpu_model_name()},
                                    {"threads", omp_get_max_threads()},
                                    {"kernels", isa},
                                    {"date", local_date()},
                                    {"heads", shape.n_heads},
                                    {"kv_heads", shape.n_kv_heads},
                                    {"head_dim", shape.head_dim},
                                    {"repeats", repeats},
                                    {"results", rows_json}};
        std::ofstream(json_path) << doc.dump(2) << "\n";
    }
    return 0;
}
