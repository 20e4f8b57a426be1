// AVX2 integer dot products of quantized weights with int8 activations. Per block of 32: the
// weights are unpacked to bytes, multiplied with the activation bytes and summed in pairs
// (maddubs: unsigned x signed bytes into int16), summed again in int32 (madd, which can apply
// a weight's small integer scales), converted to float once and scaled by the block's weight
// scale times its activation scale. The row kernels per type are in int8_block32_rows_avx2.cpp
// and int8_kquant_rows_avx2.cpp. Under KernelIsa::Avx512Vnni, prompts of the types that have
// one go to the lane kernels of int8_lanes_vnni.h instead, and single tokens to those of
// int8_token_rows_vnni.h.
//
// Bounds: |q| <= 128 and |x| <= 127 keep each maddubs pair sum within int16 (Q6_K's
// 2 * 63 * 127 = 16002 is the largest unsigned one), and a block's int32 sum stays below 2^24,
// so its conversion to float is exact.
#include "backend/int8_matmul.h"

#include <algorithm>

namespace pyramid::cpu {

bool int8_matmul_supported(TensorType type) { return is_block_quantized(type); }

} // namespace pyramid::cpu

#if defined(__x86_64__) || defined(__i386__)
#include "backend/int8_lanes_vnni.h"
#include "backend/int8_rows_avx2.h"
#include "backend/int8_token_rows_vnni.h"

namespace pyramid::cpu {
namespace {

// Fewer tokens than this in a lane group leave too many lanes idle: the AVX2 row kernels, which
// decode a row once per 4 tokens, are as fast at 4 tokens and faster below (measured on Zen 4,
// 4096 x 4096; at 5 the 8-lane kernels win for Q4_0, Q8_0 and Q4_K, and tie for Q6_K).
constexpr int kMinLaneTokens = 5;

// The row kernels: the AVX2 ones, except for a single token under Avx512Vnni where the type
// has a VNNI kernel for it (int8_token_rows_vnni.h).
void rows_avx2(const WeightView& w, const Int8Activations& a, int token_begin, int token_end, float* y,
               int64_t row_begin, int64_t row_end, KernelIsa isa)
{
    using namespace int8_avx2;
    if (isa == KernelIsa::Avx512Vnni && token_end - token_begin == 1)
        if (const int8_vnni::TokenRows one = int8_vnni::token_rows(w.type)) {
            one(w, a, token_begin, y, row_begin, row_end);
            return;
        }
    const RowKernels kernels =
        tensor_type_traits(w.type).block_elems == 32 ? block32_row_kernels(w.type) : kquant_row_kernels(w.type);
    const size_t row_bytes = w.row_bytes();
    float out[kMaxTokens];
    for (int64_t r = row_begin; r < row_end; ++r) {
        const auto* row = reinterpret_cast<const uint8_t*>(w.data) + static_cast<size_t>(r) * row_bytes;
        for (int t0 = token_begin; t0 < token_end; t0 += kMaxTokens) {
            const int count = std::min(kMaxTokens, token_end - t0);
            Tokens x;
            for (int t = 0; t < count; ++t) {
                x.q[t] = a.q_row(t0 + t);
                x.scale[t] = a.scale_row(t0 + t);
                x.group_sum[t] = a.group_sum_row(t0 + t);
            }
            kernels.for_tokens[count - 1](row, w.cols, x, out);
            for (int t = 0; t < count; ++t)
                y[static_cast<int64_t>(t0 + t) * w.rows + r] = out[t];
        }
    }
}

} // namespace

bool int8_token_lanes_pay(TensorType type, KernelIsa isa, int n)
{
    return isa == KernelIsa::Avx512Vnni && n >= kMinLaneTokens && int8_vnni::lane_rows(type) != nullptr;
}

void matmul_rows_int8(const WeightView& w, const Int8Activations& a, int token_begin, int token_end, float* y,
                      int64_t row_begin, int64_t row_end, KernelIsa isa)
{
    const int8_vnni::LaneRows lanes =
        isa == KernelIsa::Avx512Vnni && a.has_lanes() ? int8_vnni::lane_rows(w.type) : nullptr;
    // kMinLaneTokens was measured for one group, whose rows the lane kernels decode for it
    // alone. Over several groups a row is decoded once for all, and a partly filled first or
    // last group costs little more than its tokens: sent to the row kernels, they would read
    // every weight a second time.
    const bool one_group = token_begin / kLaneTokens == (token_end - 1) / kLaneTokens;
    if (!lanes || (one_group && token_end - token_begin < kMinLaneTokens))
        rows_avx2(w, a, token_begin, token_end, y, row_begin, row_end, isa);
    else
        lanes(w, a, token_begin, token_end, y, row_begin, row_end);
}

} // namespace pyramid::cpu

#else // not x86: no AVX2, so QuantizedDot::Int8 is never chosen

#include "util/error.h"

namespace pyramid::cpu {
bool int8_token_lanes_pay(TensorType, KernelIsa, int) { return false; }

void matmul_rows_int8(const WeightView&, const Int8Activations&, int, int, float*, int64_t, int64_t, KernelIsa)
{
    throw Error("the int8 matmul kernels need an x86-64 CPU with AVX2");
}
} // namespace pyramid::cpu

#endif
