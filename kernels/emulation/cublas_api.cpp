// The cuBLAS functions the backend calls, on the emulated device: the toolkit's declarations
// (cublas_v2.h), a plain float32-accumulating GEMM as the definition. It checks its arguments
// as cuBLAS documents them, and every operand's extent against the device allocations, so a
// wrong leading dimension or a host pointer stops the run instead of reading past a buffer.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "emulation/block_scheduler.h"
#include "emulation/emulated_device.h"

using pyramid::cuda::emulation::EmulatedDevice;

struct cublasContext {
    cudaStream_t stream = nullptr;
    cublasMath_t math = CUBLAS_DEFAULT_MATH;
};

namespace {

// A product, as a graph node (cuBLAS queues kernels of its own choice for it).
constexpr char kGemmNode = 0;

size_t element_bytes(cudaDataType type)
{
    switch (type) {
    case CUDA_R_32F: return 4;
    case CUDA_R_16F:
    case CUDA_R_16BF: return 2;
    default: return 0;
    }
}

float load(const void* data, cudaDataType type, size_t i)
{
    switch (type) {
    case CUDA_R_16F: return __half2float(static_cast<const __half*>(data)[i]);
    case CUDA_R_16BF: return __bfloat162float(static_cast<const __nv_bfloat16*>(data)[i]);
    default: return static_cast<const float*>(data)[i];
    }
}

void store(void* data, cudaDataType type, size_t i, float value)
{
    switch (type) {
    case CUDA_R_16F: static_cast<__half*>(data)[i] = __float2half_rn(value); break;
    case CUDA_R_16BF: static_cast<__nv_bfloat16*>(data)[i] = __float2bfloat16_rn(value); break;
    default: static_cast<float*>(data)[i] = value;
    }
}

// The combinations cuBLAS lists for cublasGemmEx with 32-bit float compute that we emulate.
bool supported(cudaDataType a, cudaDataType b, cudaDataType c)
{
    if (a != b)
        return false;
    if (a == CUDA_R_32F)
        return c == CUDA_R_32F;
    return (a == CUDA_R_16F || a == CUDA_R_16BF) && (c == a || c == CUDA_R_32F);
}

// A column-major rows x cols operand with leading dimension ld must lie in one device allocation.
void check_operand(const char* name, const void* data, cudaDataType type, int rows, int cols, int ld)
{
    const size_t bytes = (static_cast<size_t>(cols - 1) * ld + rows) * element_bytes(type);
    if (!EmulatedDevice::instance().is_device(data, bytes))
        pyramid::cuda::emulation::kernel_fault("cublasGemmEx: operand " + std::string(name) + " (" +
                                               std::to_string(rows) + " x " + std::to_string(cols) + ", ld " +
                                               std::to_string(ld) + ") is not inside one device allocation");
}

} // namespace

extern "C" {

cublasStatus_t cublasCreate_v2(cublasHandle_t* handle)
{
    *handle = new cublasContext;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (EmulatedDevice::instance().forbid_during_capture() != cudaSuccess)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    EmulatedDevice::instance().synchronize();
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->stream = stream;
    return CUBLAS_STATUS_SUCCESS;
}

// The documented contract: a device buffer aligned to 256 bytes. The emulated GEMM needs no
// workspace, so the buffer is only checked.
cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void* workspace, size_t bytes)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (reinterpret_cast<uintptr_t>(workspace) % 256 != 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (bytes > 0 && !EmulatedDevice::instance().is_device(workspace, bytes))
        pyramid::cuda::emulation::kernel_fault("cublasSetWorkspace: the workspace (" + std::to_string(bytes) +
                                               " bytes) is not inside one device allocation");
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t* stream)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    *stream = handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->math = mode;
    return CUBLAS_STATUS_SUCCESS;
}

const char* cublasGetStatusString(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "the operation completed successfully";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_INVALID_VALUE: return "an unsupported value or parameter was passed to the function";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
    default: return "an unknown cuBLAS status";
    }
}

// C = alpha op(A) op(B) + beta C, column-major, op(A) m x k, op(B) k x n; C is not read when
// beta is zero.
cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                            int k, const void* alpha, const void* A, cudaDataType Atype, int lda, const void* B,
                            cudaDataType Btype, int ldb, const void* beta, void* C, cudaDataType Ctype, int ldc,
                            cublasComputeType_t compute, cublasGemmAlgo_t)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    const bool ta = transa != CUBLAS_OP_N, tb = transb != CUBLAS_OP_N;
    if (m < 0 || n < 0 || k < 0 || lda < std::max(1, ta ? k : m) || ldb < std::max(1, tb ? n : k) ||
        ldc < std::max(1, m))
        return CUBLAS_STATUS_INVALID_VALUE;
    if ((compute != CUBLAS_COMPUTE_32F && compute != CUBLAS_COMPUTE_32F_PEDANTIC) || !supported(Atype, Btype, Ctype))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (m == 0 || n == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (k > 0) {
        check_operand("A", A, Atype, ta ? k : m, ta ? m : k, lda);
        check_operand("B", B, Btype, tb ? n : k, tb ? k : n, ldb);
    }
    check_operand("C", C, Ctype, m, n, ldc);
    // Host pointer mode: alpha and beta are read now.
    const float a = *static_cast<const float*>(alpha), b = *static_cast<const float*>(beta);
    EmulatedDevice::instance().enqueue(handle->stream, [=] {
        std::vector<float> row(k), columns(static_cast<size_t>(n) * k);  // op(A)'s row i, op(B)'s columns
        for (int j = 0; j < n; ++j)
            for (int l = 0; l < k; ++l)
                columns[static_cast<size_t>(j) * k + l] =
                    load(B, Btype, tb ? j + static_cast<size_t>(l) * ldb : l + static_cast<size_t>(j) * ldb);
        for (int i = 0; i < m; ++i) {
            for (int l = 0; l < k; ++l)
                row[l] = load(A, Atype, ta ? l + static_cast<size_t>(i) * lda : i + static_cast<size_t>(l) * lda);
            for (int j = 0; j < n; ++j) {
                const float* column = columns.data() + static_cast<size_t>(j) * k;
                float sum = 0.0f;
                for (int l = 0; l < k; ++l)
                    sum += row[l] * column[l];
                const size_t c = i + static_cast<size_t>(j) * ldc;
                store(C, Ctype, c, b == 0.0f ? a * sum : a * sum + b * load(C, Ctype, c));
            }
        }
    }, &kGemmNode);
    return CUBLAS_STATUS_SUCCESS;
}

} // extern "C"
