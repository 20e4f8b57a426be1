#include "projection.h"

#include "cuda_check.h"

namespace pyramid::cuda {

void project(cublasHandle_t handle, const DeviceMatrix& w, const void* x, int n, float* y, float beta)
{
    if (n == 0)
        return;
    // cuBLAS is column-major: row-major W [rows, cols] reads as a cols x rows matrix, x [n, cols]
    // as cols x n and y [n, rows] as rows x n, so y = (that W)^T x with m = rows, k = cols.
    const float alpha = 1.0f;
    const cudaDataType_t type = w.type == Precision::Fp16 ? CUDA_R_16F : CUDA_R_32F;
    const int m = static_cast<int>(w.rows), k = static_cast<int>(w.cols);
    check(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, w.data, type, k, x, type, k, &beta, y,
                       CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
}

} // namespace pyramid::cuda
