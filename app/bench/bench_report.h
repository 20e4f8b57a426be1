#pragma once
// What pyramid-bench prints and writes: a Markdown table per measurement on stdout and one
// JSON document (the format bench/paper_table.py reads; see bench/README.md).
#include <filesystem>
#include <string>
#include <vector>

#include "bench_model.h"
#include "bench_run.h"
#include "backend/step_memory.h"

namespace pyramid::bench {

struct BenchReport {
    std::string command;
    std::string date;  // ISO 8601, UTC
    std::string device_name;
    std::string backend;
    std::string backend_note;  // why this backend (the CPU: why CUDA did not start)
    size_t memory_total = 0;
    double copy_bandwidth_gbs = 0;
    Workload workload;
    // On a GPU without --kv-memory: device memory kept free for the steps (kv_budget.h) and
    // the largest step it was planned for; the KV budget is the rest.
    size_t step_memory = 0;
    StepExtent step_extent;
    int warmup = 0;
    int repetitions = 1;
    std::vector<RunResult> runs;
    std::vector<RunResult> max_batch;  // the largest batch found per policy
};

std::string format_table(const BenchReport& report, const BenchModel& model);
// Throws pyramid::Error naming the file when it cannot be written.
void write_json(const std::filesystem::path& path, const BenchReport& report, const BenchModel& model);

} // namespace pyramid::bench
