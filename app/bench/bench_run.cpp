#include "bench_run.h"

#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <random>
#include <string>

#include "generate/batch_scheduler.h"
#include "kv/kv_footprint.h"
#include "step_timing_backend.h"
#include "util/error.h"

namespace pyramid::bench {
namespace {

// Starts a new peak of the process's resident set (Linux 4.0 on; where refused, the peak stays
// the process's). The allocator first returns the free pages it keeps: an earlier run's freed
// cache, held in the heap of a worker thread, would otherwise count as resident in this run.
void reset_peak_resident()
{
    malloc_trim(0);
    std::ofstream("/proc/self/clear_refs") << "5";
}

// The resident set's peak since the last reset (VmHWM), or over the process's life.
size_t peak_resident_bytes()
{
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.starts_with("VmHWM:"))
            return std::stoull(line.substr(6)) * 1024;
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<size_t>(usage.ru_maxrss) * 1024;
}

std::vector<int32_t> random_prompt(std::mt19937_64& rng, int length, int n_vocab)
{
    std::uniform_int_distribution<int32_t> token(3, n_vocab - 1);
    std::vector<int32_t> prompt{1};  // BOS
    while (static_cast<int>(prompt.size()) < length)
        prompt.push_back(token(rng));
    return prompt;
}

} // namespace

RunResult run_workload(BenchModel& model, const CompressionConfig& config, const std::string& label,
                       const Workload& workload)
{
    RunResult r;
    r.policy = to_string(config.policy);
    r.label = label;
    r.batch = workload.batch;
    r.step_graphs = workload.step_graphs;
    StepTimingBackend backend(model.backend(), workload.step_graphs);
    const ModelConfig& c = model.config();
    const bool cuda = backend.info().name == "cuda";
    // Each run's own peak memory, whatever ran before it: what earlier runs grew goes back.
    backend.release_cached_memory();
    if (!cuda)
        reset_peak_resident();
    const auto start = std::chrono::steady_clock::now();
    try {
        const KvBlockUse blocks_before = backend.kv_blocks();
        BatchScheduler scheduler(backend, {workload.batch, workload.kv_byte_limit, workload.max_prompt_tokens});
        std::mt19937_64 rng(workload.seed);
        for (int b = 0; b < workload.batch; ++b) {
            BatchRequest request;
            request.prompt = random_prompt(rng, workload.prompt_len, c.n_vocab);
            request.max_new_tokens = workload.gen_len;
            request.sampling.temperature = 0;
            request.compression = config;
            scheduler.submit(std::move(request));
        }
        const size_t entry_bytes = backend.kv_entry_bytes();
        double kv_sum = 0, bandwidth_bytes = 0, bandwidth_seconds = 0, queue_seconds = 0, selection_seconds = 0;
        int steps = 0, decode_steps = 0, decode_only_steps = 0;
        long decoded = 0;
        while (!scheduler.idle()) {
            const size_t kv_before = scheduler.kv_bytes();
            for (const BatchEvent& e : scheduler.step())
                if (e.finished && e.reason == FinishReason::Error && r.ok) {
                    r.ok = false;
                    r.error = e.error;
                }
            const BatchStepStats& s = scheduler.last_step();
            const double queued = backend.take_queue_seconds();
            const double selecting = backend.take_selection_seconds();
            r.prefill_s += s.prompt_seconds;
            r.decode_s += s.decode_seconds;
            decoded += s.decoded;
            decode_steps += s.decoded > 0;
            if (s.admitted == 0 && s.decoded > 0) {
                // Every weight once, and every entry the step attends to: those held before it.
                bandwidth_bytes += static_cast<double>(model.weight_bytes() + kv_before);
                bandwidth_seconds += s.decode_seconds;
                queue_seconds += queued;
                selection_seconds += selecting;
                ++decode_only_steps;
            }
            const size_t kv = scheduler.kv_bytes();
            kv_sum += static_cast<double>(kv);
            ++steps;
            if (kv > r.kv_bytes_peak) {
                r.kv_bytes_peak = kv;
                r.layer_lengths.clear();
                for (int n : scheduler.layer_lengths())
                    r.layer_lengths.push_back(static_cast<double>(n) / std::max(1, scheduler.running()));
            }
            r.max_running = std::max(r.max_running, scheduler.running());
            if (const std::optional<DeviceMemory> memory = backend.info().memory)
                r.peak_device_memory = std::max(r.peak_device_memory, memory->used);
        }
        r.preemptions = scheduler.preemptions();
        if (const KvBlockUse blocks = backend.kv_blocks(); blocks.block_entries > 0) {
            const size_t entry_bytes_in_blocks = blocks.block_bytes / static_cast<size_t>(blocks.block_entries);
            r.compaction_bytes_dropped =
                (blocks.compaction_entries_dropped - blocks_before.compaction_entries_dropped) * entry_bytes_in_blocks;
            r.compaction_bytes_freed =
                (blocks.compaction_blocks_freed - blocks_before.compaction_blocks_freed) * blocks.block_bytes;
        }
        r.kv_bytes_mean = steps ? static_cast<size_t>(kv_sum / steps) : 0;
        r.kv_bytes_full = static_cast<size_t>(workload.batch) * static_cast<size_t>(c.n_layers) *
                          static_cast<size_t>(workload.prompt_len + workload.gen_len) * entry_bytes;
        r.total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double generated = static_cast<double>(workload.batch) * workload.gen_len;
        r.throughput_tokens_per_s = r.ok ? generated / r.total_s : 0;
        r.decode_tokens_per_s = r.decode_s > 0 ? static_cast<double>(decoded) / r.decode_s : 0;
        r.latency_ms_per_token = decode_steps ? 1e3 * r.decode_s / decode_steps : 0;
        r.decode_bandwidth_gbs = bandwidth_seconds > 0 ? bandwidth_bytes / bandwidth_seconds / 1e9 : 0;
        r.queue_ms_per_step = decode_only_steps ? 1e3 * queue_seconds / decode_only_steps : 0;
        r.selection_ms_per_step = decode_only_steps ? 1e3 * selection_seconds / decode_only_steps : 0;
    } catch (const std::exception& e) {
        r.ok = false;
        r.error = e.what();
        r.total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    if (!cuda)
        r.peak_device_memory = peak_resident_bytes();
    return r;
}

std::vector<int> interleaved_order(int variants, int repetitions)
{
    std::vector<int> order;
    for (int round = 0; round < repetitions; ++round)
        for (int i = 0; i < variants; ++i)
            order.push_back(round % 2 == 0 ? i : variants - 1 - i);
    return order;
}

std::vector<RunResult> measure_side_by_side(BenchModel& model, const std::vector<Variant>& variants, int warmup,
                                            int repetitions)
{
    for (const Variant& v : variants) {
        Workload short_run = v.workload;
        short_run.gen_len = std::min(v.workload.gen_len, 4);
        for (int i = 0; i < warmup; ++i)
            run_workload(model, v.config, v.label, short_run);
    }
    std::vector<std::vector<RunResult>> runs(variants.size());
    for (int i : interleaved_order(static_cast<int>(variants.size()), std::max(repetitions, 1))) {
        const Variant& v = variants[static_cast<size_t>(i)];
        runs[static_cast<size_t>(i)].push_back(run_workload(model, v.config, v.label, v.workload));
    }
    std::vector<RunResult> medians;
    for (std::vector<RunResult>& r : runs) {
        std::sort(r.begin(), r.end(), [](const RunResult& a, const RunResult& b) {
            return a.throughput_tokens_per_s < b.throughput_tokens_per_s;
        });
        medians.push_back(std::move(r[r.size() / 2]));
    }
    return medians;
}

bool fits(const RunResult& run, const Workload& workload)
{
    return run.ok && run.max_running == workload.batch && run.preemptions == 0;
}

RunResult find_max_batch(BenchModel& model, const CompressionConfig& config, const std::string& label,
                         Workload workload, int limit)
{
    const KvBlockUse kv_blocks = model.backend().kv_blocks();
    const bool blocks = kv_blocks.block_entries > 0 && kv_blocks.capacity_blocks != 0;
    if (workload.kv_byte_limit == 0 && !blocks)
        throw Error("finding the largest batch needs a KV memory budget");
    // One sequence first: when not even that fits, there is no batch.
    workload.batch = 1;
    RunResult one = run_workload(model, config, label, workload);
    if (!fits(one, workload)) {
        one.batch = 0;
        return one;
    }
    const int n_layers = model.config().n_layers;
    size_t predicted = 0;
    if (blocks) {
        const int per_sequence = plan_kv_peak_blocks(config, n_layers, workload.prompt_len, workload.gen_len,
                                                     kv_blocks.block_entries);
        predicted = kv_blocks.capacity_blocks / static_cast<size_t>(per_sequence);
    }
    if (workload.kv_byte_limit != 0) {
        const KvFootprint plan = plan_kv_footprint(config, n_layers, workload.prompt_len, workload.gen_len);
        const size_t by_entries =
            workload.kv_byte_limit / (static_cast<size_t>(plan.peak) * model.backend().kv_entry_bytes());
        predicted = blocks ? std::min(predicted, by_entries) : by_entries;
    }
    int fit = 1;  // the largest batch known to fit, and its run
    RunResult best = one;
    const int planned = std::clamp(static_cast<int>(std::min<size_t>(predicted, static_cast<size_t>(limit))), 1, limit);
    // Run the plan; bisect between what fits and what does not while it does not, and go up
    // one at a time while one more fits, so that the batch found is the largest, whatever the
    // plan said.
    int too_big = planned + 1;
    for (int batch = planned; batch > fit; batch = fit + (too_big - fit) / 2) {
        workload.batch = batch;
        RunResult run = run_workload(model, config, label, workload);
        if (fits(run, workload)) {
            fit = batch;
            best = std::move(run);
            if (batch == planned)
                break;
        } else {
            too_big = batch;
        }
        if (too_big - fit <= 1)
            break;
    }
    for (int batch = fit + 1; fit == planned && batch <= limit; ++batch) {
        workload.batch = batch;
        RunResult run = run_workload(model, config, label, workload);
        if (!fits(run, workload))
            break;
        fit = batch;
        best = std::move(run);
    }
    best.planned_batch = static_cast<int>(predicted);
    return best;
}

} // namespace pyramid::bench
