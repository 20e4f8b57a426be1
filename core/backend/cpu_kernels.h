#pragma once
// Float32 building blocks of the CPU backend. Row-major buffers: a matrix of n rows and
// `width` columns is n * width contiguous floats. Each takes the WorkerPool its work is spread
// over (a backend's own); without one it runs on the calling thread. Every result is the same,
// bit for bit, on any number of threads.
#include <cstddef>
#include <cstdint>
#include <span>

#include "backend/backend.h"
#include "backend/kernel_config.h"
#include "model/model_config.h"
#include "model/weight_view.h"
#include "backend/kv_entry_types.h"
#include "backend/worker_pool.h"
#include "util/float16.h"

namespace pyramid::cpu {

// y[t, r] = sum_c w[r, c] * x[t, c] for t < n, directly on w's stored type (never expanded to
// float32), rows split over threads, with the kernels `config` names, which must be supported
// here (kernel_config.h): tile decoding (quant_matmul.h), or for QuantizedDot::Int8 integer
// products with the activations rounded to int8 (int8_matmul.h) for the types
// int8_matmul_supported() names, Exact for the rest.
void matmul(const WeightView& w, const float* x, int n, float* y,
            const KernelConfig& config = best_kernel_config(), WorkerPool* workers = nullptr);

// One product of a matmul_group: y = x w^T.
struct MatmulOutput {
    const WeightView* w;
    float* y;
};
constexpr size_t kMaxMatmulGroup = 4;  // products that share one run of the workers

// matmul for several matrices over the same x (a layer's query, key and value projections,
// its gate and up): every y as matmul gives it, bit for bit, but up to kMaxMatmulGroup products
// share one run of the workers, and with the int8 dot x is rounded once for all of them. Every w
// has x's cols. Fewer runs, fewer waits for the last task (docs/perf/cpu-llama-cpp.md).
void matmul_group(std::span<const MatmulOutput> outputs, const float* x, int n,
                  const KernelConfig& config = best_kernel_config(), WorkerPool* workers = nullptr);

// out[t, :] = the embedding row of tokens[t], decoded to float32.
void embed_rows(const WeightView& table, std::span<const int32_t> tokens, float* out);

// out[t, :] = x[t, :] / rms(x[t, :]) * weight   (weight: an F32 view of `dim` values)
void rms_norm(const float* x, const WeightView& weight, int n, int dim, float eps, float* out,
              WorkerPool* workers = nullptr);

// Rotates every head of every row by its position (one per row), in place.
void rope(float* x, int n, int n_heads, int head_dim, std::span<const int32_t> positions, float theta,
          RopeLayout layout, WorkerPool* workers = nullptr);

// Causal grouped-query attention of n_q new rows against a cache of `len` entries whose last
// n_q entries are those rows. q: [n_q, n_heads*head_dim]; k, v: [len, n_kv_heads*head_dim];
// out: [n_q, n_heads*head_dim]. With a probe, probe_out gets its column scores (len values, or
// n_kv_heads * len for a per-KV-head probe: AttentionProbe).
struct AttentionShape {
    int n_heads = 0;
    int n_kv_heads = 0;
    int head_dim = 0;
};
void attention(const float* q, int n_q, const float* k, const float* v, int len, const AttentionShape& shape,
               float* out, const AttentionProbe* probe, float* probe_out, WorkerPool* workers = nullptr);

// Keys or values stored head by head, as the CPU backend's cache keeps them: entry j of KV
// head g at heads[g] + j * row_stride. Scanning one head's entries then reads memory in order
// (the layout above jumps a whole entry, 16 KiB for LLaMA-2-7B, between a head's rows).
template <typename Stored>
struct CacheHeads {
    std::span<const Stored* const> heads;  // one per KV head
    int64_t row_stride = 0;
};
// attention() over caches in that layout, keys and values each float32, fp16 (Half) or q8/q4
// blocks (kv_entry_types.h; row_stride then counts blocks). It is exactly the result over the
// entries decoded to float32: the probe's scores too, so a policy selects by the keys as stored.
// Defined for those four types of keys and of values. `isa`: whose row kernels and softmax exp
// run (a backend passes its own KernelConfig's): AVX2 and AVX-512 give the same floats, and
// Generic too but for its exp's last bit (vector_exp.h).
template <typename KStored, typename VStored>
void attention(const float* q, int n_q, CacheHeads<KStored> k, CacheHeads<VStored> v, int len,
               const AttentionShape& shape, float* out, const AttentionProbe* probe, float* probe_out,
               KernelIsa isa = best_kernel_config().isa, WorkerPool* workers = nullptr);

// gate[t, :] = silu(gate[t, :]) * up[t, :], silu's exp `isa`'s (exp_in_place, vector_exp.h).
void swiglu(float* gate, const float* up, int64_t count, KernelIsa isa = best_kernel_config().isa,
            WorkerPool* workers = nullptr);

// y += x
void add_in_place(float* y, const float* x, int64_t count);

} // namespace pyramid::cpu
