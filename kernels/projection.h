#pragma once
// The linear projections of the model through cuBLAS: y = x W^T (+ y), with x and W in the
// backend's precision, float32 accumulation and a float32 result. In fp16 this runs on the
// tensor cores; in fp32 it is plain float32 (TF32 stays off, to match the CPU reference).
#include <cublas_v2.h>

#include "device_weights.h"

namespace pyramid::cuda {

// y[t, r] = sum_c w[r, c] * x[t, c] + beta * y[t, r] for t < n. x: [n, w.cols] of w.type;
// y: float32 [n, w.rows]. beta = 1 adds the projection to y (the residual connection).
void project(cublasHandle_t handle, const DeviceMatrix& w, const void* x, int n, float* y, float beta = 0.0f);

} // namespace pyramid::cuda
