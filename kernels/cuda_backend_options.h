#pragma once
// What a CUDA backend is asked for: precision, device, KV block size, rows a layer runs at once,
// decode steps as CUDA graphs; from code, or from the environment the plugin reads.
#include "backend/step_memory.h"
#include "decode_step_graphs.h"
#include "precision.h"

namespace pyramid::cuda {

struct CudaBackendOptions {
    Precision precision = Precision::Fp16;
    int device = 0;
    int kv_block_entries = StepBufferLayout{}.kv_block_entries;
    // Rows a layer runs at once: bounds its activations (a 4096-token prompt of LLaMA-2-7B
    // would need 0.58 GiB more in one pass).
    int chunk_rows = StepBufferLayout{}.chunk_rows;
    // What the KV caches may hold together (0: the device's memory): the pool hands out no
    // block beyond it and a cache that would need one gets KvMemoryExhausted, as with a full
    // device. For a server sharing the GPU, and for tests that run a batch out of memory.
    size_t kv_capacity_bytes = 0;

    // Decode steps as CUDA graphs (work_stream.h): always, never, or whichever way the steps
    // themselves measure faster, per batch size (graph_choice.h).
    StepGraphs graphs = StepGraphs::Auto;

    // PYRAMID_CUDA_PRECISION (fp16 | fp32), PYRAMID_CUDA_DEVICE (an index) and
    // PYRAMID_CUDA_GRAPHS (on | off | auto) when set.
    static CudaBackendOptions from_environment();
};

} // namespace pyramid::cuda
