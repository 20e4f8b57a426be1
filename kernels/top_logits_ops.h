#pragma once
// The k highest logits of every row, selected on the device: what a top-k (or greedy) sampler
// needs, k ids and values per row instead of the whole vocabulary.
//
// The order is select_top_logits' (core/backend/top_logits.h) entry for entry: value
// descending, equal values by the lower token id. -0.0 and +0.0 are equal (they tie, the lower
// id first); +inf and -inf order like any number. NaN, on which the host comparator is
// undefined, counts as lower than every number (-inf included), NaNs tie among themselves; it
// never makes the kernel read or write outside its buffers. Values are returned as read.
//
// One block per row, five passes over the row (which stays in L1/L2):
// 1. every float becomes an order-preserving uint32 key (NaN -> 0, -0.0 -> +0.0's key);
// 2. a radix select, four passes of 8-bit histograms (one per warp in shared memory, equal
//    digits of a warp merged with __match_any_sync), finds the k-th largest key T and how
//    many entries equal to T belong to the top k;
// 3. one pass takes every entry above T and, by a block-wide count in id order, the lowest-id
//    entries equal to T, exactly k of them;
// 4. a bitonic sort in shared memory of (key, id) pairs on the next power of two, padded with
//    a pair below every real one, puts them in the order above. The result is deterministic.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernel_stream.h"

namespace pyramid::cuda {

// The largest k top_logits() selects (its sort buffer lives in shared memory).
inline constexpr int kMaxTopLogits = 1024;

// logits: float32 [rows, n_vocab] on the device. Writes, for every row r and i < k,
// ids[r * k + i] and values[r * k + i] (device arrays of rows * k), the row's i-th highest
// logit in the order above. Requires n_vocab >= 1 and 0 <= k <= min(n_vocab, kMaxTopLogits),
// else throws pyramid::Error naming the problem; k == 0 (or rows == 0) writes nothing.
void top_logits(const float* logits, int rows, int n_vocab, int k, int32_t* ids, float* values, KernelStream stream);

} // namespace pyramid::cuda
