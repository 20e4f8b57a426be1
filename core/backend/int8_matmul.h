#pragma once
// The integer half of QuantizedDot::Int8 (kernel_config.h): a quantized weight matrix times
// activations rounded to int8 (int8_activations.h), block by block in integers as the weight
// types are designed to be used, then scaled to float32 once per block of 32.
//
// Each block's integer dot is exact, so the result equals the float32 dot of the dequantized
// weights with the rounded activations up to float32 rounding (the weight scales are applied
// to the block sums instead of to each weight). The rounding of the activations is the only
// real difference from QuantizedDot::Exact: about 1e-3 relative on logits.
#include <cstdint>

#include "backend/int8_activations.h"
#include "backend/kernel_config.h"
#include "model/weight_view.h"

namespace pyramid::cpu {

// Every quantized block type (Q4_0 to Q8_0 and the K-quants Q2_K to Q6_K).
bool int8_matmul_supported(TensorType type);

// Whether a product of `type` with n tokens on `isa` runs faster with the activations also in
// token lanes (quantize_activations(..., token_lanes = true)): Avx512Vnni, a type with a lane
// kernel (int8_lanes_vnni.h) and enough tokens to fill the lanes.
bool int8_token_lanes_pay(TensorType type, KernelIsa isa, int n);

// y[t * w.rows + r] = sum_c w[r, c] * a[t, c] for t in [token_begin, token_end) and r in
// [row_begin, row_end), on the calling thread. Needs runs_avx2(isa) (kernel_config.h), a
// supported type and a.cols == w.cols. With Avx512Vnni the lane kernels run where `a` has
// token lanes and a lane group has enough of the tokens; the AVX2 row kernels run otherwise.
void matmul_rows_int8(const WeightView& w, const Int8Activations& a, int token_begin, int token_end, float* y,
                      int64_t row_begin, int64_t row_end, KernelIsa isa);

} // namespace pyramid::cpu
