#pragma once
// What the CUDA backend is asked for: precision, device, KV block size and capacity, rows a
// layer runs at once, decode steps as CUDA graphs. The engine passes these to the backend
// library when it creates the backend (backend_loader.h), so they are part of the plugin's
// interface; no CUDA here, and nothing is read from the environment (a program that lets its
// environment choose does so at its edge: backend_environment.h).
#include <cstddef>
#include <optional>
#include <string>

#include "backend/kv_precision.h"
#include "backend/step_memory.h"

namespace pyramid::cuda {

// The number format the CUDA backend stores weights, key/value entries and matrix inputs in.
// Accumulation, softmax, norms and the residual stream are float32 in both.
//   Fp16: half the memory and tensor-core matrix products; logits within ~1e-3 of float32.
//   Fp32: twice the memory, no tensor cores; agrees with the CPU backend to float rounding
//         (used to check the kernels against golden files bit for bit in their decisions).
enum class Precision { Fp16, Fp32 };

inline size_t element_bytes(Precision p) { return p == Precision::Fp16 ? 2 : 4; }
inline const char* precision_name(Precision p) { return p == Precision::Fp16 ? "fp16" : "fp32"; }
// The cache type a GPU of precision `p` stores where no other is asked for: its own.
inline KvPrecision own_kv_precision(Precision p) { return p == Precision::Fp16 ? KvPrecision::F16 : KvPrecision::F32; }

// "fp16" or "fp32"; throws pyramid::Error for anything else.
Precision parse_precision(const std::string& text);

// Decode steps as CUDA graphs (kernels/work_stream.h): always, never, or whichever way the
// steps themselves measure faster, per batch size (kernels/graph_choice.h).
enum class StepGraphs { Off, On, Auto };

// "on", "off" or "auto"; throws pyramid::Error for anything else.
StepGraphs parse_step_graphs(const std::string& text);

// "on" (true) or "off" (false); throws pyramid::Error naming `what` for anything else.
bool parse_on_off(const std::string& text, const std::string& what);

// Rows a layer runs at once (CudaBackendOptions::chunk_rows): a number from 1 to kMaxChunkRows,
// or "auto" (0: by the device's memory); throws pyramid::Error for anything else.
int parse_chunk_rows(const std::string& text);

struct CudaBackendOptions {
    Precision precision = Precision::Fp16;
    int device = 0;
    int kv_block_entries = StepBufferLayout{}.kv_block_entries;
    // Rows a layer runs at once: bounds its activations (a 4096-token prompt of LLaMA-2-7B
    // would need 0.58 GiB more in one pass than in 512-row chunks). 0: as many as the device's
    // memory free beside the weights allows (chunk_rows_for_memory in backend/step_memory.h).
    int chunk_rows = 0;
    // What the KV caches may hold together (0: the device's memory): the pool hands out no
    // block beyond it and a cache that would need one gets KvMemoryExhausted, as with a full
    // device. For a server sharing the GPU, and for tests that run a batch out of memory.
    size_t kv_capacity_bytes = 0;
    // What the KV cache's keys and values are stored as (kv_precision.h). Unset: the
    // precision's own type, fp16 or float32, as before. Otherwise each of keys and values is
    // the precision's own type, q8 or q4 (q8 and q4 need head_dim a multiple of 32); f16 under
    // fp32, or f32 under fp16, is refused.
    std::optional<KvTypes> kv_types = std::nullopt;
    StepGraphs graphs = StepGraphs::Auto;
    // Each kernel launched to overlap the kernel before it in the stream (programmatic
    // dependent launch, kernels/kernel_stream.h), on devices of compute capability 9.0 and
    // later; elsewhere it changes nothing. Off until a device has measured it faster
    // (docs/perf/gpu-llama-cpp.md, "The seventh change").
    bool overlap_launches = false;
};

// The types a GPU of precision `p` stores nearest to `wanted`, for a setting that names one
// cache type wherever the model runs: q8 and q4 as they are, f16 and f32 as the precision's
// own. What memory estimates count for a GPU.
KvTypes cuda_stored_kv_types(KvTypes wanted, Precision p);
// The same as CudaBackendOptions::kv_types takes it: nullopt where both halves are the
// precision's own type.
std::optional<KvTypes> cuda_kv_types_for(KvTypes wanted, Precision p);

} // namespace pyramid::cuda
