#pragma once
// The KV memory a benchmark on a GPU gives its scheduler: the device's free memory less what
// the run's steps take besides (Backend::step_memory_bytes). That memory grows with the rows
// of the largest prompt step and with the number of sequences running together, and the
// number that can run is itself set by the KV budget, so the plan counts the most sequences
// whose KV caches could share what is left.
#include <cstddef>
#include <functional>
#include <vector>

#include "backend/step_memory.h"
#include "bench_run.h"
#include "kv/compression_config.h"

namespace pyramid::bench {

struct KvBudget {
    size_t free = 0;         // device memory free once the model is loaded
    StepExtent extent;       // the largest step the run may make
    size_t step_memory = 0;  // what steps up to that extent take
    size_t kv_bytes = 0;     // free - step_memory, or 0 when nothing is left
};

// `most_sequences`: the largest batch the run asks for (--max-batch: its limit).
// `step_memory`: the backend's Backend::step_memory_bytes. Every batch the scheduler can hold
// in kv_bytes, by the smallest planned KV footprint among `configs`, is at most
// extent.sequences, so its steps fit in step_memory.
KvBudget plan_kv_budget(size_t free, const std::function<size_t(const StepExtent&)>& step_memory,
                        size_t kv_entry_bytes, int n_layers, const std::vector<CompressionConfig>& configs,
                        const Workload& workload, int most_sequences);

} // namespace pyramid::bench
