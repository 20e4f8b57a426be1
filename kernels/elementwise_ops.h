#pragma once
// The per-row kernels of a transformer layer, as host functions that enqueue work on `stream`.
// All pointers are device pointers; matrices are row-major, n rows of `width` elements.
// "void*" buffers hold elements of the given Precision; float* buffers are float32.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernel_stream.h"
#include "int8_rows.h"
#include "model/model_config.h"
#include "backend/cuda_backend_options.h"

namespace pyramid::cuda {

// out[t, :] = table[tokens[t], :] as float32. Token ids must be valid (checked by the caller).
void embed_rows(const void* table, Precision table_type, int dim, const int32_t* tokens, int n, float* out,
                KernelStream stream);

// out[t, :] = x[t, :] / rms(x[t, :]) * weight, rounded to out_type. With also_int8 (rows of
// dim values, dim a multiple of 32), out is also rounded to int8 there, as round_rows_int8
// would round it: the fp16 matvecs of out then need no launch of their own to round it.
void rms_norm(const float* x, const float* weight, int n, int dim, float eps, void* out, Precision out_type,
              KernelStream stream, const Int8Rows& also_int8 = {});

// Rotates every head of every row of x [n, n_heads * head_dim] in place by its row's position;
// with `also` ([n, also_heads * head_dim], the keys beside the queries) those too, in the same
// launch (one launch fewer a layer).
void rope(float* x, int n, int n_heads, int head_dim, const int32_t* positions, float theta, RopeLayout layout,
          KernelStream stream, float* also = nullptr, int also_heads = 0);

// out[i] = silu(gate[i]) * up[i], rounded to out_type; with also_int8 (count a multiple of 32),
// as rms_norm.
void swiglu(const float* gate, const float* up, int64_t count, void* out, Precision out_type, KernelStream stream,
            const Int8Rows& also_int8 = {});

// dst[t, :] = src[rows[t], :] for t < n (dst must not overlap src).
void gather_rows(const float* src, int width, const int32_t* rows, int n, float* dst, KernelStream stream);

} // namespace pyramid::cuda
