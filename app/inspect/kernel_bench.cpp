// pyramid-kernel-bench: the CPU matrix product y = x W^T for each weight type, with the exact
// quantized dot (weights decoded tile by tile) and the int8 one (activations rounded to int8,
// integer products) side by side in one process: the two alternate within each repeat, so a
// busy machine slows both alike. Weights are generated as pyramid-bench generates them
// (model/synthetic_weights.h), activations are random. Before timing, each int8 product is
// compared with the exact one; the table reports that difference next to the speeds.
//
// Prints a Markdown table on stdout; --json writes the same numbers. Exit codes: 0 done,
// 2 bad options, 3 the int8 kernels cannot run on this CPU.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/backend_environment.h"
#include "backend/cpu_cores.h"
#include "backend/cpu_kernels.h"
#include "backend/int8_matmul.h"
#include "backend/kernel_config.h"
#include "command_line.h"
#include "eval/replay.h"
#include "model/synthetic_storage.h"
#include "model/synthetic_weights.h"
#include "model/tensor_type.h"
#include "util/error.h"
#include "util/measurement.h"

namespace {

using namespace pyramid;
using Clock = std::chrono::steady_clock;

struct Row {
    TensorType type;
    int tokens = 0;
    double exact_ms = 0, int8_ms = 0;  // medians; int8_ms is 0 where the type has no int8 kernel
    double int8_difference = 0;        // max |int8 - exact| / max |exact|
};

double seconds_of(const WeightView& w, const std::vector<float>& x, int n, std::vector<float>& y,
                  const cpu::KernelConfig& config, WorkerPool& workers)
{
    const auto t0 = Clock::now();
    cpu::matmul(w, x.data(), n, y.data(), config, &workers);
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// A weight type by the name --weight-type of pyramid-bench takes ("q4_k"; not a mix).
TensorType type_named(const std::string& name)
{
    const SyntheticStorage storage = SyntheticStorage::parse(name);
    if (storage.medium_mix)
        throw Error("'" + name + "' is a mix of types; name one type");
    return storage.base;
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app{"Measure the CPU matrix product per weight type: exact against int8 quantized dot.",
                 "pyramid-kernel-bench"};
    int64_t rows = 4096, cols = 4096;
    std::vector<int> token_counts{1, 128};
    std::vector<std::string> type_names{"q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_k",
                                        "q3_k", "q4_k", "q5_k", "q6_k", "f16",  "f32"};
    int repeats = 5;
    std::string json_path;
    app.add_option("--rows", rows, "output features of the matrix")
        ->check(pyramid::whole_number(1, 1 << 20))
        ->capture_default_str();
    app.add_option("--cols", cols, "input features (a multiple of each type's block: 256 for K-quants, 32 else)")
        ->check(pyramid::whole_number(32, 1 << 20))
        ->capture_default_str();
    app.add_option("--tokens", token_counts, "rows of x per product (1 = decode, more = prompt)")
        ->delimiter(',')
        ->check(pyramid::whole_number(1, 4096))
        ->capture_default_str();
    app.add_option("--types", type_names, "weight types, as pyramid-bench --weight-type names them")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--repeats", repeats, "timed products of each variant (the median is reported)")
        ->check(pyramid::whole_number(1, 1000))
        ->capture_default_str();
    app.add_option("--json", json_path, "also write the results here");
    if (const auto status = parse_command_line(app, argc, argv, "pyramid-kernel-bench"))
        return *status;
    std::vector<TensorType> types;
    try {
        for (const std::string& name : type_names) {
            const TensorType type = type_named(name);
            // Small models' rows (SmolLM2's 576) hold no whole K-quant super-block.
            const int64_t block = tensor_type_traits(type).block_elems;
            if (cols % block != 0)
                throw Error(fmt::format("--cols {} is not a multiple of {}'s block of {} values; name --types "
                                        "whose blocks divide it",
                                        cols, name, block));
            types.push_back(type);
        }
    } catch (const Error& e) {
        fmt::print(stderr, "pyramid-kernel-bench: {}\n", e.what());
        return 2;
    }
    // The best kernels of this CPU, or those PYRAMID_CPU_KERNELS names: the int8 ones need AVX2.
    const cpu::KernelIsa isa = kernel_config_from_environment().isa;
    // The threads a CPU backend would get here (OMP_NUM_THREADS where set).
    WorkerPool workers(cpu_threads_or_default(with_environment({}).cpu_threads));
    const cpu::KernelConfig exact{isa, cpu::QuantizedDot::Exact};
    const cpu::KernelConfig int8{isa, cpu::QuantizedDot::Int8};
    if (!cpu::runs_avx2(isa)) {
        fmt::print(stderr, "pyramid-kernel-bench: the int8 kernels need AVX2; the {} kernels were chosen ({})\n",
                   cpu::kernel_isa_name(isa),
                   cpu::kernel_isa_supported(cpu::KernelIsa::Avx2) ? "PYRAMID_CPU_KERNELS" : "this CPU lacks AVX2");
        return 3;
    }

    std::mt19937 rng(1);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    const int most_tokens = *std::max_element(token_counts.begin(), token_counts.end());
    std::vector<float> x(static_cast<size_t>(most_tokens * cols));
    for (float& v : x)
        v = value(rng);
    std::vector<Row> results;
    for (TensorType type : types) {
        std::vector<std::byte> bytes(tensor_row_bytes(type, cols) * static_cast<size_t>(rows));
        fill_synthetic_matrix(bytes.data(), type, rows, cols, 0x5eed + static_cast<uint64_t>(type));
        const WeightView w{std::string(tensor_type_traits(type).name), type, rows, cols, bytes.data()};
        const bool has_int8 = cpu::int8_matmul_supported(type);
        for (int n : token_counts) {
            std::vector<float> y_exact(static_cast<size_t>(n * rows)), y_int8(y_exact.size());
            seconds_of(w, x, n, y_exact, exact, workers);  // warm-up, and the reference
            Row row{type, n};
            if (has_int8) {
                seconds_of(w, x, n, y_int8, int8, workers);
                row.int8_difference = relative_error(y_int8, y_exact);
            }
            std::vector<double> exact_times, int8_times;
            for (int r = 0; r < repeats; ++r) {
                exact_times.push_back(seconds_of(w, x, n, y_exact, exact, workers));
                if (has_int8)
                    int8_times.push_back(seconds_of(w, x, n, y_int8, int8, workers));
            }
            row.exact_ms = 1e3 * median(exact_times);
            row.int8_ms = has_int8 ? 1e3 * median(int8_times) : 0;
            results.push_back(row);
        }
    }

    fmt::print("Machine: {}, {} threads; {} kernels; date: {}\n", cpu_model_name(), workers.threads(),
               cpu::kernel_isa_name(isa), local_date());
    fmt::print("y = x W^T, W {} x {} generated; median of {} runs of each variant, alternating.\n\n", rows, cols,
               repeats);
    fmt::print("| type | bits/weight | tokens | exact ms | int8 ms | exact GMAC/s | int8 GMAC/s | int8 speed-up | "
               "int8 vs exact |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    nlohmann::json rows_json = nlohmann::json::array();
    for (const Row& r : results) {
        const auto& traits = tensor_type_traits(r.type);
        const double bits = 8.0 * static_cast<double>(traits.block_bytes) / static_cast<double>(traits.block_elems);
        const double macs = static_cast<double>(rows) * static_cast<double>(cols) * r.tokens;
        const double exact_rate = macs / (r.exact_ms * 1e6);
        if (r.int8_ms > 0) {
            const double int8_rate = macs / (r.int8_ms * 1e6);
            fmt::print("| {} | {:.2f} | {} | {:.3f} | {:.3f} | {:.1f} | {:.1f} | {:.2f}x | {:.1e} |\n", traits.name,
                       bits, r.tokens, r.exact_ms, r.int8_ms, exact_rate, int8_rate, r.exact_ms / r.int8_ms,
                       r.int8_difference);
        } else {
            fmt::print("| {} | {:.2f} | {} | {:.3f} | - | {:.1f} | - | - | - |\n", traits.name, bits, r.tokens,
                       r.exact_ms, exact_rate);
        }
        nlohmann::json j = {{"type", traits.name}, {"bits_per_weight", bits}, {"tokens", r.tokens},
                            {"exact_ms", r.exact_ms}};
        if (r.int8_ms > 0) {
            j["int8_ms"] = r.int8_ms;
            j["int8_relative_difference"] = r.int8_difference;
        }
        rows_json.push_back(j);
    }
    if (!json_path.empty()) {
        const nlohmann::json doc = {{"tool", "pyramid-kernel-bench"},
                                    {"cpu", cpu_model_name()},
                                    {"threads", workers.threads()},
                                    {"kernels", cpu::kernel_isa_name(isa)},
                                    {"date", local_date()},
                                    {"rows", rows},
                                    {"cols", cols},
                                    {"repeats", repeats},
                                    {"results", rows_json}};
        std::ofstream(json_path) << doc.dump(2) << "\n";
    }
    return 0;
}
