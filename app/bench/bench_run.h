#pragma once
// One benchmark measurement: `batch` sequences of random prompts of prompt_len tokens, each
// generating exactly gen_len tokens (greedy, no end of sequence), through the engine's
// continuous batching (generate/batch_scheduler.h) with one compression policy. Times come
// from the scheduler's own step timings; memory from the caches and the device.
#include <cstdint>
#include <string>
#include <vector>

#include "bench_model.h"
#include "kv/compression_config.h"

namespace pyramid::bench {

struct Workload {
    int prompt_len = 512;
    int gen_len = 256;
    int batch = 1;
    uint64_t seed = 1;
    size_t kv_byte_limit = 0;     // 0: none
    int max_prompt_tokens = 8192;  // prompt tokens run in one step
    // Decode steps announced to the backend (Backend::begin_decode_step), which a GPU backend
    // records and launches as CUDA graphs; off: queued kernel by kernel.
    bool step_graphs = true;
};

struct RunResult {
    std::string policy;  // "full", "pyramid", ...
    std::string label;   // policy, with the preset when one was given
    int batch = 0;
    bool step_graphs = true;  // as the workload said
    bool ok = true;
    std::string error;
    double prefill_s = 0;  // steps' prompt time
    double decode_s = 0;   // steps' decode time
    double total_s = 0;    // wall time of the whole workload
    double decode_tokens_per_s = 0;
    double throughput_tokens_per_s = 0;  // generated tokens / total time, as in the paper
    double latency_ms_per_token = 0;     // mean decode step time
    double queue_ms_per_step = 0;        // of a decode-only step, the host's time to queue its layers
                                         // (step_timing_backend.h)
    double selection_ms_per_step = 0;    // and its time after the probe scores arrived: selections,
                                         // compactions queued
    size_t kv_bytes_mean = 0;  // over the steps
    size_t kv_bytes_peak = 0;
    size_t kv_bytes_full = 0;  // what a full cache holds at the end
    size_t peak_device_memory = 0;  // GPU memory in use; on the CPU the process's peak resident set
    std::vector<double> layer_lengths;  // mean entries per sequence and layer at the KV peak
    double decode_bandwidth_gbs = 0;    // (weights + KV) bytes read per decode-only step / its time
    int max_running = 0;
    int preemptions = 0;
    int planned_batch = 0;  // find_max_batch: the batch its plan predicted before running any
    // What compaction dropped during the run and gave back at once as whole blocks, where the
    // backend counts it (Backend::kv_blocks(): the CPU's; 0 elsewhere).
    size_t compaction_bytes_dropped = 0;
    size_t compaction_bytes_freed = 0;
};

// Runs the workload once. Never throws for the engine's errors (out of memory included): the
// result says ok = false and why.
RunResult run_workload(BenchModel& model, const CompressionConfig& config, const std::string& label,
                       const Workload& workload);

// One thing measured: a policy (under its label) on a workload.
struct Variant {
    CompressionConfig config;
    std::string label;
    Workload workload;
};

// Which variant each timed run measures: `repetitions` rounds in which each of `variants`
// variants runs once, first to last in even rounds and last to first in odd ones (A B C, C B A,
// A B C, ...), so drift over the session (clocks, caches, the host's other load) weighs on every
// variant alike and their ratios are side by side.
std::vector<int> interleaved_order(int variants, int repetitions);

// `warmup` short runs (a few generated tokens, which fill the backend's buffers) of every
// variant, then `repetitions` timed runs of each in interleaved_order. Returns, per variant in
// the given order, its run of median throughput.
std::vector<RunResult> measure_side_by_side(BenchModel& model, const std::vector<Variant>& variants, int warmup,
                                            int repetitions);

// Whether a run used the batch it was given from start to end, with nothing preempted.
bool fits(const RunResult& run, const Workload& workload);

// The largest batch whose workload fits the KV memory: planned from the policy's KV footprint
// (kv/kv_footprint.h), then confirmed by running it, bisecting down while it does not fit.
// On a CPU backend with a KV capacity the plan counts its blocks as the scheduler reserves
// them (plan_kv_peak_blocks, backend/kv_block_allocator.h); otherwise `workload.kv_byte_limit`
// in entries. Returns the confirmed run, planned_batch set; its batch is 0 when not even one fits.
RunResult find_max_batch(BenchModel& model, const CompressionConfig& config, const std::string& label,
                         Workload workload, int limit);

} // namespace pyramid::bench
