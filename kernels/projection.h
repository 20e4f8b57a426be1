#pragma once
// The linear projections of the model: y = x W^T (+ beta y), float32 accumulation and a
// float32 result, x in the backend's precision. The path depends on how W is stored and on
// the number n of input rows:
//   - fp16 W, n <= kHalfMatvecRows (decode steps, small batches): half_matvec.h, which reads
//     W at more of the memory bandwidth than cuBLAS's GEMM does at a few rows (where W and x
//     are 16-byte aligned and rows a multiple of eight values; else as below).
//   - float W otherwise (fp16 or fp32): one cublasGemmEx. In fp16 this runs on the tensor
//     cores; in fp32 it is plain float32 (TF32 stays off, to match the CPU reference).
//   - quantized W, n <= kMaxMatvecRows (decode steps, small batches): quant_matvec.h reads the
//     blocks directly; in fp16 with x rounded to int8 (round_rows_int8 into the scratch, or
//     by the kernel that wrote x, for all the projections of that x: int8_rows_for), in fp32
//     with x as it is.
//   - quantized W, larger n (prefill, big batches): W is dequantized a tile of rows at a time
//     into a scratch buffer of the precision (at most kMaxDequantTileBytes of backend/step_memory.h, reused) and each
//     tile goes through cublasGemmEx, so the tensor cores do the arithmetic and a dequantized
//     copy of the whole matrix never exists.
// Everything runs on the cuBLAS handle's stream (ProjectionQueue).
#include <cublas_v2.h>

#include <cstddef>
#include <initializer_list>
#include <vector>

#include "backend/step_memory.h"
#include "device_weights.h"
#include "int8_rows.h"
#include "kernel_stream.h"

namespace pyramid::cuda {

// Where projections are queued: cuBLAS's handle, and for this library's kernels the handle's
// stream as a KernelStream (whether they overlap the kernel before them, kernel_stream.h).
struct ProjectionQueue {
    // Implicit: a handle alone queues in plain stream order on its stream (tests, benchmarks).
    ProjectionQueue(cublasHandle_t blas);
    // `kernels.stream` must be the handle's stream.
    ProjectionQueue(cublasHandle_t blas, KernelStream kernels) : blas(blas), kernels(kernels) {}

    cublasHandle_t blas;
    KernelStream kernels;
};

// Device memory the tile path dequantizes into and the fp16 matvec rounds activations into.
struct ProjectionScratch {
    void* data = nullptr;
    size_t bytes = 0;
};

// Scratch bytes the projections of these matrices want in this precision: the tile path's
// (pyramid::dequant_scratch_bytes of the quantized ones) and, in fp16, at least kMaxMatvecRows
// rounded rows of the widest.
size_t projection_scratch_bytes(const std::vector<const DeviceMatrix*>& matrices, Precision precision);

// Where x [n, cols] rounded to int8 goes for the int8 matvecs of the projections of `matrices`
// (all reading x) when at least one of them takes that path (quantized, fp16,
// n <= kMaxMatvecRows): rows in `scratch`, for the kernel that writes x to fill as well
// (rms_norm's or swiglu's also_int8) and for each project() of x to read; none otherwise.
// So x is rounded once, in the launch that makes it, instead of once per matrix.
Int8Rows int8_rows_for(std::initializer_list<const DeviceMatrix*> matrices, int n, ProjectionScratch scratch);

// y[t, r] = sum_c w[r, c] * x[t, c] + beta * y[t, r] for t < n. x: [n, w.cols] of w.type;
// y: float32 [n, w.rows]. beta = 1 adds the projection to y (the residual connection); with
// beta = 0, y is only written. A quantized w needs `scratch` (throws pyramid::Error when it is
// too small): with n > kMaxMatvecRows room for at least one dequantized row, in fp16 with
// fewer rows for x rounded to int8 unless `rounded` (x as int8 rows, see int8_rows_for) is given.
void project(const ProjectionQueue& queue, const DeviceMatrix& w, const void* x, int n, float* y, float beta = 0.0f,
             ProjectionScratch scratch = {}, const Int8Rows& rounded = {});

// y = x W^T (+ beta y) for a float W (fp16 or fp32) through one cublasGemmEx at any n: what
// project() does for such a W above kHalfMatvecRows rows (pyramid-gpu-kernel-bench times it
// against half_matvec below).
void dense_gemm(const ProjectionQueue& queue, const DeviceMatrix& w, const void* x, int n, float* y, float beta = 0.0f);

// project() with beta 0 of each matrix into its own y, all reading x: neighbours in the list
// that take the same matvec (the int8 one with the same type, or the fp16 one) and width run in
// one launch (matvec_parts.h: q, k and v, or gate and up), with the same results.
struct ProjectionOutput {
    const DeviceMatrix* w = nullptr;
    float* y = nullptr;
};
void project_each(const ProjectionQueue& queue, std::initializer_list<ProjectionOutput> outputs, const void* x, int n,
                  ProjectionScratch scratch, const Int8Rows& rounded = {});

} // namespace pyramid::cuda
