#pragma once
// One stored fp16 value as its bits (conversions: util/float16.h). On its own, in C++17, so that
// the CUDA sources can include the KV cache's block layout (backend/kv_entry_layout.h).
#include <cstdint>

namespace pyramid {

// A type of its own, so that code over stored element types tells it from bfloat16 and from
// integers.
struct Half {
    uint16_t bits;
};

} // namespace pyramid
