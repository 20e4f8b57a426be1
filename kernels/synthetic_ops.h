#pragma once
// Generated weights made on the GPU: the same values as core's host generator
// (model/synthetic_value.h), so a model generated on the device is bit for bit the one the
// host would generate and upload, without 13 GB crossing the bus.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernel_stream.h"
#include "model/tensor_type.h"
#include "backend/cuda_backend_options.h"

namespace pyramid::cuda {

// Fills `count` elements (row-major index = element number) of the tensor with this key
// (synthetic::tensor_key) and scale, as the host stores them in `source_type` (F32, F16 or
// BF16: each value is rounded through it first), then converted to `out_type` as an upload
// would: fp16 rounds to nearest even.
void fill_synthetic(void* out, Precision out_type, int64_t count, TensorType source_type, uint64_t key, float scale,
                    KernelStream stream);

} // namespace pyramid::cuda
