#pragma once
// How kernels find one layer's key/value entries: entry e lives in block e / block_entries at
// slot e % block_entries. A block holds block_entries keys, then block_entries values, each
// kv_dim elements of the backend's precision, so one head's slice of an entry is contiguous.
namespace pyramid::cuda {

struct KvBlockTable {
    void* const* blocks = nullptr;  // device array: each block's base address, in entry order
    int block_entries = 0;
    int kv_dim = 0;
};

} // namespace pyramid::cuda
