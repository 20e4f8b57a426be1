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

// The two over Stored rows (float, Half, KvQ8Block, KvQ4Block), as an instruction set runs them: the generic
// templates above, or AVX2 kernels giving their very floats.
template <typename Stored>
struct RowKernels {
    void (*dot)(const float* q, const Stored* rows, int64_t stride, int count, int n, float* out);
    void (*accumulate)(const float* weights, const Stored* rows, int64_t stride, int count, int n, float* out);
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
    return {rows_dot<Stored>, rows_accumulate<Stored>};
}

} // namespace pyramid::cpu
