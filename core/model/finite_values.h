#pragma once
// Whether a stored tensor holds NaN or infinity, checked when a model loads: one bad weight
// makes every reply garbage (" ⁇ ⁇ ⁇") with no word why. Float tensors are checked element by
// element, quantized ones by the fp16 scales of every block (all their other bits decode to
// finite values whatever they are). A bit test per value, in parallel: it reads the bytes
// once, as the first step or a GPU upload reads them anyway.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "model/tensor_type.h"

namespace pyramid {

// The index of the first element (float types) or block (quantized types) of `elements`
// elements at `data` that is not finite; nullopt when every one is.
std::optional<int64_t> first_non_finite(TensorType type, const std::byte* data, int64_t elements);

} // namespace pyramid
