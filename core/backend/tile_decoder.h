#pragma once
// Decoding a tile of quantized weights to float32, the first half of the CPU's exact quantized
// matmul (quant_matmul.h): it decodes a few blocks of a row into a small buffer that stays in
// L1 and dots them with the activations there, so a quantized model is never expanded to
// float32 in memory.
//
// Every decoder, generic or SIMD, is bit-identical to tensor_type_traits(type).to_float (and
// so to ggml's reference dequantization): the quantized matmul computes exactly the products
// the dequantized float32 model would, and only the order of the float32 sums differs.
#include <cstdint>

#include "backend/kernel_config.h"
#include "model/tensor_type.h"

namespace pyramid::cpu {

// Decodes n elements (a whole number of blocks) starting at a block boundary of `src`.
using TileDecoder = void (*)(const void* src, float* dst, int64_t n);

// The decoder of `type` for `isa`. AVX2 has SIMD decoders for every type but F32 (whose
// "decoder" is a copy that the matmul skips); Generic uses to_float.
TileDecoder tile_decoder(TensorType type, KernelIsa isa);

namespace detail {
// The AVX2 decoder of `type`, or nullptr when it has none. Only call what it returns on a
// CPU where kernel_isa_supported(KernelIsa::Avx2).
TileDecoder avx2_tile_decoder(TensorType type);
} // namespace detail

} // namespace pyramid::cpu
