#pragma once
// Turns CUDA and cuBLAS status codes into pyramid::Error, so every failure reaches the
// engine as an exception naming the step that failed (never an abort).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "util/error.h"

namespace pyramid::cuda {

inline void check(cudaError_t status, const char* what)
{
    if (status == cudaSuccess)
        return;
    // Clear it: otherwise the next launch check reports this error again, under another name.
    (void)cudaGetLastError();
    throw Error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(status));
}

inline void check(cublasStatus_t status, const char* what)
{
    if (status != CUBLAS_STATUS_SUCCESS)
        throw Error(std::string("cuBLAS error in ") + what + ": " + cublasGetStatusString(status));
}

// After a kernel launch: reports a bad launch configuration right away (errors inside the
// kernel surface at the next synchronizing call).
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

} // namespace pyramid::cuda
