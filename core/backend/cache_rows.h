#pragma once
// What attention does with a KV cache's rows: dot a query with each of them, and add them up
// weighted. Rows are float32, fp16 (Half), or q8/q4 blocks (kv_entry_types.h); a quantized row
// is read as it is stored, each value decoded (scale * code) where it is used and the sums kept
// in float32. Over every stored type the results are exactly those over the rows' float32
// values, in the same order, so attention over fp16 or quantized entries gives the very floats
// of float32 attention over the decoded entries. The AVX2 kernels work eight lanes at a time and
// decode eight values an instruction or three (F16C, or widening the codes), with the generic
// kernels' results.
#include <cstdint>

#include "backend/float_dot.h"
#include "backend/kernel_config.h"
#include "util/float16.h"

namespace pyramid::cpu {

// out[j] = dot(q, rows + j * stride, n) for j < count: n values a row, `stride` stored elements
// (kValuesPerElement values each) from one row to the next.
template <typename Stored>
void rows_dot(const float* q, const Stored* rows, int64_t stride, int count, int n, float* out)
{
    for (int j = 0; j < count; ++j)
        out[j] = dot(q, rows + j * stride, n);
}

// out[d] += weights[j] * rows[j * stride + d] for d < n, j from 0 to count - 1 in order.
template <typename Stored>
void rows_accumulate(const float* weights, const Stored* rows, int64_t stride, int count, int n, float* out)
{
    for (int j = 0; j < count; ++j) {
        const Stored* row = rows + j * stride;
#pragma omp simd
        for (int d = 0; d < n; ++d)
            out[d] += weights[j] * value_at(row, d);
    }
}

// rows_dot for n_q queries against the same rows: query r at q + r * q_stride, its dots at
// out + r * out_stride. Each dot is rows_dot's, in its order; a kernel may take several queries
// at once to read (and decode) each row once for all of them.
template <typename Stored>
void rows_dot_queries(const float* q, int64_t q_stride, int n_q, const Stored* rows, int64_t stride, int count,
                      int n, float* out, int64_t out_stride)
{
    for (int r = 0; r < n_q; ++r)
        rows_dot(q + r * q_stride, rows, stride, count, n, out + r * out_stride);
}

// rows_accumulate for n_q weight lists over the same rows: weights + r * w_stride into
// out + r * out_stride, each output value adding the rows in ascending j as rows_accumulate does.
template <typename Stored>
void rows_accumulate_queries(const float* weights, int64_t w_stride, int n_q, const Stored* rows, int64_t stride,
                             int count, int n, float* out, int64_t out_stride)
{
    for (int r = 0; r < n_q; ++r)
        rows_accumulate(weights + r * w_stride, rows, stride, count, n, out + r * out_stride);
}

// The four over Stored rows (float, Half, KvQ8Block, KvQ4Block), as an instruction set runs them: the generic
// templates above, or AVX2 kernels giving their very floats.
template <typename Stored>
struct RowKernels {
    void (*dot)(const float* q, const Stored* rows, int64_t stride, int count, int n, float* out);
    void (*accumulate)(const float* weights, const Stored* rows, int64_t stride, int count, int n, float* out);
    void (*dot_queries)(const float* q, int64_t q_stride, int n_q, const Stored* rows, int64_t stride, int count,
                        int n, float* out, int64_t out_stride);
    void (*accumulate_queries)(const float* weights, int64_t w_stride, int n_q, const Stored* rows, int64_t stride,
                               int count, int n, float* out, int64_t out_stride);
};

namespace detail {
template <typename Stored>
RowKernels<Stored> row_kernels_avx2();
} // namespace detail

// The kernels of `isa`, which must be supported here (kernel_config.h).
template <typename Stored>
RowKernels<Stored> row_kernels(KernelIsa isa)
{
    if (runs_avx2(isa))
        return detail::row_kernels_avx2<Stored>();
    return {rows_dot<Stored>, rows_accumulate<Stored>, rows_dot_queries<Stored>, rows_accumulate_queries<Stored>};
}

} // namespace pyramid::cpu
