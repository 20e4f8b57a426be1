#pragma once
// The GPU's attention and probe against the CPU's over the same stored entries: the one check
// the kernel tests of every entry type (float32, fp16, q8, q4) share.
#include <random>
#include <string>

#include "backend/cpu_kernels.h"
#include "backend/cuda_backend_options.h"
#include "filled_store.h"

namespace pyramid::gpu_test {

// Runs cuda::attention and cuda::attention_probe for `n` random query rows (the cache's last
// n; values in [-q_range, q_range]) over the first `len` entries of `filled`, and the probe again in two chunks as a chunked
// prompt adds it; checks each against cpu::attention over the entries as stored
// (filled.keys, filled.values): outputs within 1e-5 (fp32) or half an fp16 step, probe
// scores within 1e-5 of the largest, both plus 1e-4 relative. `what` names the case.
void check_attention_against_cpu(std::mt19937& rng, FilledStore& filled, int len, int n,
                                 const cpu::AttentionShape& shape, cuda::Precision p, const std::string& what,
                                 float q_range = 2.0f);

} // namespace pyramid::gpu_test
