#pragma once
// The AVX512-VNNI int8 kernels (KernelIsa::Avx512Vnni) for prompts and batches: a weight row
// against up to 16 tokens at once, one token per 32-bit lane of a 512-bit vector (or 8 in a
// 256-bit one, when the tokens asked for lie in one half of a lane group), reading the
// activations in their token-lane layout (TokenLanes, int8_activations.h).
//
// Per activation block of 32: each group of 4 weights is decoded to unsigned bytes, broadcast
// to every lane and multiplied with the tokens' 4 activation bytes by one vpdpbusd (the sum
// of 4 byte products added to an int32 lane, with no int16 step to saturate). A type's offset
// (Q8_0's 128, Q4_0's 8, Q5_0's 16, Q3_K's 4, Q6_K's 32: the bytes are q + offset, kept
// unsigned) starts the integer sum at -offset * (the tokens' activation sum), so it is exact;
// the integer scales of Q2_K, Q3_K and Q6_K (one per 16 weights) multiply the sums of their
// halves. The sum is converted to float once per block and scaled by the weight scale times
// the token's activation scale, as the AVX2 kernels do; the minimums of Q4_1, Q5_1, Q4_K and
// Q5_K (per block) and Q2_K (per half) meet scale * (activation sum). Four rows share each
// activation load, and each row is decoded once for all tokens.
//
// Bounds: every integer sum is exact in int32 and below 2^24 before its conversion to float;
// the largest is Q6_K's sum of sc * (q - 32) * x over a block: 32 * 128 * 32 * 127 < 2^24.
//
// Results equal the AVX2 int8 kernels' up to float32 summation order. Every block type has a
// kernel here (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K to Q6_K); under Avx512Vnni single tokens
// take int8_token_rows_vnni.h and other small token counts the AVX2 kernels.
//
// Every function carries the AVX-512 target attribute instead of the file being compiled
// for it: nothing here may run (or be merged into code that runs) on a CPU without
// AVX512F/BW/VL and AVX512_VNNI.
#include <cstdint>

#include "backend/int8_activations.h"
#include "model/weight_view.h"

namespace pyramid::cpu::int8_vnni {

// y[t * w.rows + r] for the tokens [token_begin, token_end) and rows [row_begin, row_end),
// from a.lanes. Each row is decoded once for all the tokens' lane groups.
using LaneRows = void (*)(const WeightView& w, const Int8Activations& a, int token_begin, int token_end, float* y,
                          int64_t row_begin, int64_t row_end);

// The lane kernel of `type`, or null where it has none.
LaneRows lane_rows(TensorType type);

} // namespace pyramid::cpu::int8_vnni
