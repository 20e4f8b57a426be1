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
#include "model/weight_view.h"

namespace pyramid::cpu {

// Every quantized block type (Q4_0 to Q8_0 and the K-quants Q2_K to Q6_K).
bool int8_matmul_supported(TensorType type);

// y[t * w.rows + r] = sum_c w[r, c] * a[t, c] for t in [token_begin, token_end) and r in
// [row_begin, row_end), on the calling thread. Needs AVX2 (kernel_config.h), a supported type
// and a.cols == w.cols.
void matmul_rows_int8(const WeightView& w, const Int8Activations& a, int token_begin, int token_end, float* y,
                      int64_t row_begin, int64_t row_end);

} // namespace pyramid::cpu
