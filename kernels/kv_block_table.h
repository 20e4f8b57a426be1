#pragma once
// How kernels find one layer's key/value entries: entry e lives in block e / block_entries at
// slot e % block_entries. A block holds block_entries key rows, then, from value_offset bytes
// on, block_entries value rows. A row is one entry's kv_dim values in its stored type: float32
// or fp16 elements, or q8/q4 blocks of 32 values with their scale (backend/kv_entry_layout.h,
// the CPU's layout), the KV heads one after the other, so one head's slice of an entry is
// contiguous. (C++17: CUDA sources include it.)
#include "backend/cuda_backend_options.h"
#include "backend/kv_precision.h"

namespace pyramid::cuda {

struct KvBlockFormat {
    int block_entries = 0;
    int kv_dim = 0;
    int value_offset = 0;  // bytes: the key rows, rounded up to 16 bytes so value rows stay aligned
    KvPrecision key_type = KvPrecision::F16;
    KvPrecision value_type = KvPrecision::F16;
};

struct KvBlockTable {
    void* const* blocks = nullptr;  // device array: each block's base address, in entry order
    KvBlockFormat format;
};

// Whether the kernels are built for these stored types under precision p: keys and values each
// in p's own element type (float32 or fp16), q8 or q4. (Each further type would multiply the
// attention kernels' instances.)
inline bool kv_types_supported(Precision p, KvPrecision k, KvPrecision v)
{
    const KvPrecision own = p == Precision::Fp16 ? KvPrecision::F16 : KvPrecision::F32;
    const auto ok = [&](KvPrecision t) { return t == own || t == KvPrecision::Q8 || t == KvPrecision::Q4; };
    return ok(k) && ok(v);
}

} // namespace pyramid::cuda
