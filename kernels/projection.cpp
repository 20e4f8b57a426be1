#include "projection.h"

#include <algorithm>
#include <string>

#include "cuda_check.h"
#include "dequantize_ops.h"
#include "half_matvec.h"
#include "quant_matvec.h"

namespace pyramid::cuda {
namespace {

cudaStream_t stream_of(cublasHandle_t blas)
{
    cudaStream_t stream = nullptr;
    check(cublasGetStream(blas, &stream), "cublasGetStream");
    return stream;
}

// y[:, row0 : row0 + rows] (+)= x W[row0 : row0 + rows, :]^T for a dense W of the precision.
// cuBLAS is column-major: row-major W [rows, cols] reads as a cols x rows matrix, x [n, cols]
// as cols x n and y [n, w_rows] as w_rows x n (leading dimension w_rows), so
// y = (that W)^T x with m = rows, k = cols.
void gemm(cublasHandle_t handle, const void* w, Precision type, int64_t rows, int64_t cols, int64_t ldy,
          const void* x, int n, float* y, float beta)
{
    const float alpha = 1.0f;
    const cudaDataType_t t = type == Precision::Fp16 ? CUDA_R_16F : CUDA_R_32F;
    const int m = static_cast<int>(rows), k = static_cast<int>(cols);
    check(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, w, t, k, x, t, k, &beta, y, CUDA_R_32F,
                       static_cast<int>(ldy), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
}

void tiled_gemm(const ProjectionQueue& queue, const DeviceMatrix& w, const void* x, int n, float* y, float beta,
                ProjectionScratch scratch)
{
    const size_t row_bytes = static_cast<size_t>(w.cols) * element_bytes(w.type);
    const int64_t tile_rows = std::min<int64_t>(w.rows, static_cast<int64_t>(scratch.bytes / row_bytes));
    if (!scratch.data || tile_rows < 1)
        throw Error("projection: a quantized " + std::to_string(w.rows) + " x " + std::to_string(w.cols) +
                    " matrix needs a dequantization scratch of at least " + std::to_string(row_bytes) +
                    " bytes for " + std::to_string(n) + " input rows, got " + std::to_string(scratch.bytes));
    // Tiles run in stream order, so one scratch serves them all: a tile is dequantized only
    // after the GEMM that read the previous one.
    for (int64_t r0 = 0; r0 < w.rows; r0 += tile_rows) {
        const int64_t rows = std::min(tile_rows, w.rows - r0);
        dequantize_rows(*w.quantized, w.data, w.cols, r0, rows, scratch.data, w.type, queue.kernels);
        gemm(queue.blas, scratch.data, w.type, rows, w.cols, w.rows, x, n, y + r0, beta);
    }
}

bool takes_int8_matvec(const DeviceMatrix& w, int n)
{
    return w.quantized && w.type == Precision::Fp16 && n <= kMaxMatvecRows;
}

bool takes_half_matvec(const DeviceMatrix& w, const void* x, int n)
{
    return !w.quantized && w.type == Precision::Fp16 && n <= kHalfMatvecRows && half_matvec_fits(w.data, w.cols, x);
}

// The scratch as the buffer of n int8 rows of cols values.
void* int8_buffer(ProjectionScratch scratch, int n, int64_t cols)
{
    const size_t needed = int8_rows_bytes(n, cols);
    if (!scratch.data || scratch.bytes < needed)
        throw Error("projection: " + std::to_string(n) + " rows of " + std::to_string(cols) +
                    " activations rounded to int8 need a scratch of " + std::to_string(needed) + " bytes, got " +
                    std::to_string(scratch.bytes));
    return scratch.data;
}

} // namespace

ProjectionQueue::ProjectionQueue(cublasHandle_t blas) : blas(blas), kernels(stream_of(blas)) {}

size_t projection_scratch_bytes(const std::vector<const DeviceMatrix*>& matrices, Precision precision)
{
    std::vector<MatrixExtent> quantized;
    int64_t widest = 0;
    for (const DeviceMatrix* m : matrices)
        if (m->quantized) {
            quantized.push_back({static_cast<int>(m->rows), static_cast<int>(m->cols)});
            widest = std::max(widest, m->cols);
        }
    const size_t tiles = pyramid::dequant_scratch_bytes(quantized, element_bytes(precision));
    return precision == Precision::Fp16 && widest > 0 ? std::max(tiles, int8_rows_bytes(kMaxMatvecRows, widest))
                                                      : tiles;
}

Int8Rows int8_rows_for(std::initializer_list<const DeviceMatrix*> matrices, int n, ProjectionScratch scratch)
{
    for (const DeviceMatrix* w : matrices)
        if (takes_int8_matvec(*w, n))
            return int8_rows_in(int8_buffer(scratch, n, w->cols), n, w->cols);
    return {};
}

void project_each(const ProjectionQueue& queue, std::initializer_list<ProjectionOutput> outputs, const void* x, int n,
                  ProjectionScratch scratch, const Int8Rows& rounded)
{
    const ProjectionOutput* const end = outputs.end();
    for (const ProjectionOutput* o = outputs.begin(); o != end;) {
        const DeviceMatrix& w = *o->w;
        const bool int8 = takes_int8_matvec(w, n), half = takes_half_matvec(w, x, n);
        const auto joins = [&](const ProjectionOutput* next) {
            if (next == end || next->w->cols != w.cols)
                return false;
            if (int8)
                return takes_int8_matvec(*next->w, n) && *next->w->quantized == *w.quantized;
            return half && takes_half_matvec(*next->w, x, n);
        };
        if (n == 0 || !joins(o + 1)) {
            project(queue, w, x, n, o->y, 0.0f, scratch, rounded);
            ++o;
            continue;
        }
        MatvecParts parts;
        do {
            parts.part[parts.count++] = {o->w->data, o->w->rows, o->y};
            ++o;
        } while (parts.count < kMaxMatvecParts && joins(o));
        if (half) {
            half_matvec(parts, w.cols, x, n, 0.0f, queue.kernels);
            continue;
        }
        const Int8Rows x_int8 = rounded ? rounded
                                        : round_rows_int8(x, w.type, n, w.cols, int8_buffer(scratch, n, w.cols),
                                                          queue.kernels);
        quant_matvec_int8(*w.quantized, parts, w.cols, x_int8, n, 0.0f, queue.kernels);
    }
}

void dense_gemm(const ProjectionQueue& queue, const DeviceMatrix& w, const void* x, int n, float* y, float beta)
{
    if (w.quantized)
        throw Error("dense_gemm: a quantized matrix (project() takes it)");
    gemm(queue.blas, w.data, w.type, w.rows, w.cols, w.rows, x, n, y, beta);
}

void project(const ProjectionQueue& queue, const DeviceMatrix& w, const void* x, int n, float* y, float beta,
             ProjectionScratch scratch, const Int8Rows& rounded)
{
    if (n == 0)
        return;
    const KernelStream& stream = queue.kernels;
    if (!w.quantized) {
        if (takes_half_matvec(w, x, n))
            half_matvec(w.data, w.rows, w.cols, x, n, y, beta, stream);
        else
            dense_gemm(queue, w, x, n, y, beta);
        return;
    }
    if (takes_int8_matvec(w, n)) {
        const Int8Rows x_int8 =
            rounded ? rounded : round_rows_int8(x, w.type, n, w.cols, int8_buffer(scratch, n, w.cols), stream);
        quant_matvec_int8(*w.quantized, w.data, w.rows, w.cols, x_int8, n, y, beta, stream);
    } else if (n <= kMaxMatvecRows) {
        quant_matvec(*w.quantized, w.data, w.rows, w.cols, x, w.type, n, y, beta, stream);
    } else {
        tiled_gemm(queue, w, x, n, y, beta, scratch);
    }
}

} // namespace pyramid::cuda
