#pragma once
// Where a quantized block keeps its fp16 scale fields (d, and dmin/m where the type has them),
// as byte offsets inside one block (core/model/tensor_type.cpp lists the layouts). Everything
// else in a block is bits for which any value is valid, so tests make random blocks by filling
// random bytes and then writing finite scales at these offsets. Empty for unquantized types.
#include <cstddef>
#include <vector>

#include "model/tensor_type.h"

namespace pyramid::test {

inline std::vector<size_t> block_scale_offsets(TensorType type)
{
    switch (type) {
    case TensorType::Q4_0:
    case TensorType::Q5_0:
    case TensorType::Q8_0: return {0};
    case TensorType::Q4_1:
    case TensorType::Q5_1:
    case TensorType::Q4_K:
    case TensorType::Q5_K: return {0, 2};
    case TensorType::Q2_K: return {80, 82};
    case TensorType::Q3_K: return {108};
    case TensorType::Q6_K: return {208};
    default: return {};
    }
}

} // namespace pyramid::test
