#pragma once
// How batched decode attention (kernels/decode_attention.h) cuts a sequence's cache into
// splits, each with a partial softmax of its own: shared by the kernels and by the step-memory
// bound (step_memory.h) that sizes their partial buffers. (C++17: CUDA sources include it.)
//
// At batch 1 the splits are nearly all the parallelism a layer's decode attention has (a warp
// per KV head and split), and each warp spends its time waiting on memory, so a cache is cut
// fine: splits of kMinDecodeSplitEntries entries up to kMaxDecodeSplits of them, then splits
// twice as long at each doubling of the cache, so no cache has more than kMaxDecodeSplits (its
// partial outputs stay a small part of what it reads). A split depends only on the cache's own
// length, so a sequence decodes to the same bits alone or in any batch.
#include "util/host_device.h"

namespace pyramid {

inline constexpr int kMinDecodeSplitEntries = 32;
inline constexpr int kMaxDecodeSplits = 32;

// Entries per split of a cache of `len` entries: kMinDecodeSplitEntries times a power of two.
PYRAMID_HOST_DEVICE inline int decode_split_entries(int len)
{
    const int per_split = len / kMaxDecodeSplits + (len % kMaxDecodeSplits != 0 ? 1 : 0);
    int entries = kMinDecodeSplitEntries;
    while (entries < per_split)
        entries *= 2;
    return entries;
}

// Splits of a cache of `len` entries: at most kMaxDecodeSplits.
PYRAMID_HOST_DEVICE inline int decode_splits(int len)
{
    const int entries = decode_split_entries(len);
    return len / entries + (len % entries != 0 ? 1 : 0);
}

// The most splits of any cache of at most `len` entries (decode_splits is not monotonic: a
// cache of 1024 entries has 32 splits of 32, one of 1025 has 17 of 64).
PYRAMID_HOST_DEVICE inline int decode_splits_up_to(int len)
{
    const int fine = len / kMinDecodeSplitEntries + (len % kMinDecodeSplitEntries != 0 ? 1 : 0);
    return fine < kMaxDecodeSplits ? fine : kMaxDecodeSplits;
}

} // namespace pyramid
