#pragma once
// Quantized blocks from host memory, as a GGUF file stores them, to device memory in the
// device's layout (backend/device_weight_layout.h): the file's bytes in the file's order, except
// that Q4_0's, Q8_0's and Q6_K's blocks are regrouped eight at a time (staged on the host a
// slice at a time).
// Synchronous, like cudaMemcpy. The weights' upload and every test or benchmark that hands
// blocks to the kernels go through it, so none assumes the file's layout.
#include <cstdint>
#include <string>

#include "model/tensor_type.h"

namespace pyramid::cuda {

// The `blocks` blocks of a matrix of `type` from `host` to `device`, which holds
// device_blocks_bytes(type, blocks) bytes. Throws pyramid::Error naming `what` when a copy
// fails or `type` has no blocks.
void upload_blocks(TensorType type, const void* host, int64_t blocks, void* device, const std::string& what);

} // namespace pyramid::cuda
