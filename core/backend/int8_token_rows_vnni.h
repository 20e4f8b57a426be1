#pragma once
// The AVX512-VNNI int8 kernels for one token (a decode step at batch 1), for
// KernelIsa::Avx512Vnni: they take the place of the AVX2 row kernels (int8_rows_avx2.h) for a
// single token, for the types they cover.
//
// Same numbers as the AVX2 kernels: activations rounded per block of 32, each block's integer
// dot exact, converted to float once and scaled by the weight scale times the activation scale.
// What changes is how: vpdpbusd (unsigned weight bytes x signed activation bytes, 4 products
// summed into each int32 lane) replaces maddubs + madd; eight blocks (a K-quant super-block,
// or eight consecutive blocks of the 32-element types) are reduced across lanes together, so
// one conversion to float and one multiply-add serve eight blocks instead of one each; the
// rows' final sums are taken eight rows at a time. Q6_K's integer scales (one per 16 weights)
// and the offsets of Q4_0, Q5_0, Q8_0 (8, 16, 128: their bytes are q + offset, unsigned) and
// Q6_K (32) meet the integer sums before the conversion. Results equal the AVX2 kernels' up
// to float32 summation order, and a row's result does not depend on the row range asked for.
//
// Every function carries the AVX-512 target attribute instead of the file being compiled for
// it: nothing here may run (or be merged into code that runs) on a CPU without AVX512F/BW/VL
// and AVX512_VNNI.
#include <cstdint>

#include "backend/int8_activations.h"
#include "model/weight_view.h"

namespace pyramid::cpu::int8_vnni {

// y[token * w.rows + r] for the rows [row_begin, row_end) of w against one token of `a`
// (its row layout; token lanes are not needed).
using TokenRows = void (*)(const WeightView& w, const Int8Activations& a, int token, float* y, int64_t row_begin,
                           int64_t row_end);

// The one-token kernel of `type` (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K), or null
// where it has none (Q2_K, Q3_K keep the AVX2 kernel).
TokenRows token_rows(TensorType type);

} // namespace pyramid::cpu::int8_vnni
