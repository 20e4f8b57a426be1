#pragma once
// Storage types of weight tensors, numbered as ggml numbers them (the ids GGUF files carry),
// and the per-type facts every reader and backend needs: block geometry and how to decode a
// run of blocks to float32.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace pyramid {

enum class TensorType : uint32_t {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    Q5_0 = 6,
    Q5_1 = 7,
    Q8_0 = 8,
    Q2_K = 10,
    Q3_K = 11,
    Q4_K = 12,
    Q5_K = 13,
    Q6_K = 14,
    BF16 = 30,
};

struct TensorTypeTraits {
    TensorType type;
    std::string_view name;  // ggml's name: "f32", "q4_K", ...
    int64_t block_elems;    // elements per block (1 for plain float types)
    size_t block_bytes;     // bytes per block
    // Decodes n elements (a whole number of blocks) starting at a block boundary.
    // Bit-identical to ggml's scalar reference dequantization.
    void (*to_float)(const void* src, float* dst, int64_t n);
    // Byte offsets in a block of its fp16 scale fields (d, and m or dmin where the type has
    // them); -1 where there is none. Every other bit of a block is valid whatever its value,
    // so random bits plus finite scales make a valid block. None for float types.
    std::array<int16_t, 2> scale_offsets{-1, -1};
};

// nullopt for ids this build does not know: callers name the id in their error.
std::optional<TensorTypeTraits> tensor_type_traits(uint32_t type_id);
const TensorTypeTraits& tensor_type_traits(TensorType type);

// Whether the type stores blocks of quantized values (not plain F32, F16 or BF16 elements).
bool is_block_quantized(TensorType type);

// Bytes that n elements of a row occupy; throws pyramid::Error when n is not a whole
// number of blocks.
size_t tensor_row_bytes(TensorType type, int64_t n);

} // namespace pyramid
