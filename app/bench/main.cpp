// pyramid-bench: throughput and memory of the engine's continuous batching, per KV-cache
// policy and batch size, on a model file or generated weights of a named LLaMA-2 shape.
// Prints a Markdown table, writes JSON (--json) for bench/paper_table.py and for
// `pyramid-eval bench-plots`. --write-gguf writes the generated weights as a GGUF file instead
// (generated_model_file.h). Exit codes: 0 done, 2 bad options, 3 the model cannot be loaded
// (or written), 4 a measurement failed (reported in the table and the JSON).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "bench_model.h"
#include "command_line.h"
#include "bench_report.h"
#include "bench_run.h"
#include "generated_model_file.h"
#include "kv_budget.h"
#include "engine_options.h"
#include "model/model_shapes.h"
#include "output_file.h"
#include "util/byte_size.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/measurement.h"

using namespace pyramid;
using namespace pyramid::bench;

namespace {

std::string run_label(const CompressionConfig& config, const Workload& workload)
{
    return to_string(config.policy) + (workload.step_graphs ? "" : " no-graphs");
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app{"pyramid-bench: throughput and KV memory per policy and batch size"};
    std::string model_path, shape = "tiny", weight_type = "f16", json_path, write_gguf, vocabulary;
    uint64_t seed = 1;
    bool list_shapes = false, max_batch = false, verbose = false;
    int max_batch_limit = 1024, warmup = 1, repetitions = 1;
    double kv_memory_gib = 0;
    Workload workload;
    std::vector<int> batches{1};
    CompressionOptions compression("full,pyramid", true);
    DeviceOption device(KvPrecision::F16);
    std::string step_graphs = "on";

    app.add_option("--model", model_path, "a .gguf file or Hugging Face folder (instead of --shape)");
    app.add_option("--shape", shape, "generated weights of a named shape (see --list-shapes)")->capture_default_str();
    app.add_option("--weight-type", weight_type,
                   "storage of generated matrices: f16, bf16, f32, a quantized type (q4_0 ... q6_k) or "
                   "llama.cpp's q4_k_m / q5_k_m mix")
        ->capture_default_str();
    app.add_option("--seed", seed, "seed of generated weights and prompts")->capture_default_str();
    app.add_flag("--list-shapes", list_shapes, "print the named shapes and exit");
    app.add_option("--write-gguf", write_gguf,
                   "write the generated weights (--shape, --weight-type, --seed) to this GGUF file and exit");
    app.add_option("--vocab", vocabulary, "with --write-gguf: a GGUF file whose tokenizer the file gets "
                                          "(e.g. llama.cpp's ggml-vocab-llama-spm.gguf)");
    compression.add_to(app);
    device.add_to(app);
    app.add_option("--batch", batches, "batch sizes to measure, e.g. 1,8,32")->delimiter(',')->capture_default_str();
    app.add_flag("--max-batch", max_batch, "also find the largest batch whose KV cache fits the memory budget");
    app.add_option("--max-batch-limit", max_batch_limit, "never try batches above this")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--kv-memory", kv_memory_gib,
                   "KV memory budget in GiB (default: on CUDA the free memory less what its largest steps take)");
    app.add_option("--prompt-len", workload.prompt_len, "prompt tokens per sequence")->capture_default_str();
    app.add_option("--gen-len", workload.gen_len, "generated tokens per sequence")->capture_default_str();
    app.add_option("--max-prompt-tokens", workload.max_prompt_tokens, "prompt tokens run in one step")
        ->capture_default_str();
    app.add_option("--warmup", warmup, "short untimed runs before each measurement")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option("--repetitions", repetitions, "timed runs per measurement (the median is kept)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--step-graphs", step_graphs,
                   "decode steps as CUDA graphs: on, off, or both (each measurement both ways, side by side)")
        ->check(CLI::IsMember({"on", "off", "both"}))
        ->capture_default_str();
    app.add_option("--json", json_path, "write the results as JSON");
    app.add_flag("--verbose", verbose, "debug logging");
    if (const auto status = parse_command_line(app, argc, argv, "pyramid-bench"))
        return *status;

    init_logging({verbose, false, "pyramid-bench"});
    if (list_shapes) {
        for (const ModelShape& s : model_shapes()) {
            const ModelConfig& c = s.config;
            std::printf("%s %d %d %d %d %d %d %d\n", s.name.c_str(), c.n_vocab, c.dim, c.ffn_dim, c.n_layers,
                        c.n_heads, c.n_kv_heads, c.context_length);
        }
        return 0;
    }

    std::vector<CompressionConfig> configs;
    BackendOptions backend;
    SyntheticStorage storage;
    try {
        storage = SyntheticStorage::parse(weight_type);
        if (!write_gguf.empty() && (vocabulary.empty() || !model_path.empty()))
            throw Error("--write-gguf writes generated weights: it needs --vocab and no --model");
        configs = compression.resolve_all();
        backend = device.options();
        // On the CPU the budget is the backend's own: its caches' blocks run out where a GPU
        // pool of that size would (backend/kv_block_allocator.h).
        backend.cpu_kv_memory.capacity_bytes = static_cast<size_t>(kv_memory_gib * (1ull << 30));
        if (workload.prompt_len < 1 || workload.gen_len < 1)
            throw Error("--prompt-len and --gen-len must be at least 1");
        if (std::any_of(batches.begin(), batches.end(), [](int b) { return b < 1; }))
            throw Error("--batch sizes must be at least 1");
        if (kv_memory_gib < 0)
            throw Error("--kv-memory must not be negative (0: the default budget)");
        // Found out now, not after the whole measurement.
        if (!json_path.empty())
            check_writable(json_path);
    } catch (const Error& e) {
        std::fprintf(stderr, "pyramid-bench: %s\n", e.what());
        return 2;
    }

    if (!write_gguf.empty()) {
        try {
            const auto start = std::chrono::steady_clock::now();
            const uint64_t bytes = write_generated_model({shape, storage, seed, vocabulary}, write_gguf);
            std::fprintf(stderr, "pyramid-bench: wrote %s: %s in %s, %s in %.1f s\n", write_gguf.c_str(),
                         shape.c_str(), storage.name().c_str(), byte_size_text(bytes).c_str(),
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            return 0;
        } catch (const Error& e) {
            std::fprintf(stderr, "pyramid-bench: %s\n", e.what());
            return 3;
        }
    }

    std::unique_ptr<BenchModel> model;
    try {
        ModelSource source;
        if (!model_path.empty())
            source.file = model_path;
        source.shape = shape;
        source.storage = storage;
        source.seed = seed;
        model = std::make_unique<BenchModel>(source, backend);
    } catch (const Error& e) {
        std::fprintf(stderr, "pyramid-bench: %s\n", e.what());
        return 3;
    }
    if (workload.prompt_len + workload.gen_len > model->config().context_length) {
        std::fprintf(stderr, "pyramid-bench: %d+%d tokens do not fit the model's context of %d\n",
                     workload.prompt_len, workload.gen_len, model->config().context_length);
        return 2;
    }

    BenchReport report;
    for (int i = 0; i < argc; ++i)
        report.command += (i ? " " : "") + std::string(argv[i]);
    report.date = utc_timestamp();
    const BackendInfo info = model->backend().info();
    report.backend = info.name;
    report.backend_note = model->backend_note();
    std::fprintf(stderr, "pyramid-bench: %s on %s: %s\n", model->name().c_str(), info.name.c_str(),
                 model->backend_note().c_str());
    report.device_name = info.device;
    report.memory_total = info.memory ? info.memory->total : 0;
    report.warmup = warmup;
    report.repetitions = repetitions;
    workload.seed = seed;
    size_t free = 0;
    if (kv_memory_gib > 0)
        workload.kv_byte_limit = static_cast<size_t>(kv_memory_gib * (1ull << 30));
    else if (info.name == "cuda") {
        free = info.memory ? info.memory->total - info.memory->used : 0;
        const Backend& backend = model->backend();
        const int most = max_batch ? max_batch_limit : *std::max_element(batches.begin(), batches.end());
        const KvBudget budget = plan_kv_budget(
            free, [&](const StepExtent& e) { return backend.step_memory_bytes(e); }, backend.kv_entry_bytes(),
            model->config().n_layers, configs, workload, most);
        workload.kv_byte_limit = budget.kv_bytes;
        report.step_memory = budget.step_memory;
        report.step_extent = budget.extent;
    }
    report.workload = workload;
    if (max_batch && workload.kv_byte_limit == 0) {
        if (info.name == "cuda")
            std::fprintf(stderr,
                         "pyramid-bench: --max-batch: %s has %.1f MiB free after loading the model, no more than "
                         "the %.1f MiB its steps of up to %d rows take; give the KV budget with --kv-memory GIB\n",
                         info.device.c_str(), double(free) / (1u << 20), double(report.step_memory) / (1u << 20),
                         report.step_extent.rows);
        else
            std::fprintf(stderr, "pyramid-bench: --max-batch needs --kv-memory on the CPU\n");
        return 2;
    }
    spdlog::info("model loaded in {:.1f} s; KV budget {} bytes", model->load_seconds(), workload.kv_byte_limit);

    bool failed = false;
    std::vector<bool> graph_modes{step_graphs != "off"};
    if (step_graphs == "both")
        graph_modes.push_back(false);
    workload.step_graphs = graph_modes.front();
    // Every policy and graph mode of one batch size is measured side by side (interleaved), the
    // runs reported policy by policy.
    std::vector<Variant> variants;
    for (const CompressionConfig& config : configs)
        for (int batch : batches)
            for (bool graphs : graph_modes) {
                Workload w = workload;
                w.batch = batch;
                w.step_graphs = graphs;
                variants.push_back({config, run_label(config, w), w});
            }
    report.runs.resize(variants.size());
    std::vector<int> batch_sizes = batches;
    std::sort(batch_sizes.begin(), batch_sizes.end());
    batch_sizes.erase(std::unique(batch_sizes.begin(), batch_sizes.end()), batch_sizes.end());
    for (int batch : batch_sizes) {
        std::vector<size_t> at;
        std::vector<Variant> same_batch;
        for (size_t i = 0; i < variants.size(); ++i)
            if (variants[i].workload.batch == batch) {
                at.push_back(i);
                same_batch.push_back(variants[i]);
            }
        std::vector<RunResult> measured = measure_side_by_side(*model, same_batch, warmup, repetitions);
        for (size_t k = 0; k < at.size(); ++k) {
            std::fprintf(stderr, "%s batch %d: %.1f tokens/s\n", measured[k].label.c_str(), batch,
                         measured[k].throughput_tokens_per_s);
            failed = failed || !measured[k].ok;
            report.runs[at[k]] = std::move(measured[k]);
        }
    }
    if (max_batch)
        for (const CompressionConfig& config : configs) {
            report.max_batch.push_back(
                find_max_batch(*model, config, run_label(config, workload), workload, max_batch_limit));
            failed = failed || report.max_batch.back().batch == 0;
        }

    // Measured last: its large buffers would otherwise count in the runs' peak memory.
    report.copy_bandwidth_gbs = model->backend().copy_bandwidth() / 1e9;
    std::cout << format_table(report, *model) << std::flush;
    if (!json_path.empty()) {
        try {
            write_json(json_path, report, *model);
        } catch (const Error& e) {
            std::fprintf(stderr, "pyramid-bench: %s\n", e.what());
            return 4;
        }
    }
    return failed ? 4 : 0;
}
