#pragma once
// The device side of the KV cache's stored types (kv_block_table.h): where an entry's row lies,
// its values decoded in registers, a row stored by a block of threads, and the launchers'
// choice of kernel by stored type. Decoding gives exactly the CPU's value_at floats (scale *
// code is exact in float32) and storing exactly its store_values bytes, so the GPU and the CPU
// hold and read the same entries.
#include <cuda_fp16.h>

#include <string>
#include <type_traits>

#include "backend/kv_entry_layout.h"
#include "element_type.cuh"
#include "kv_block_table.h"
#include "util/error.h"

namespace pyramid::cuda {

// Row `slot` of a block (its value row when `value`), as an array of its stored type S.
template <typename S>
__device__ __forceinline__ S* entry_row(void* block, int slot, const KvBlockFormat& f, bool value)
{
    char* base = static_cast<char*>(block) + (value ? f.value_offset : 0);
    return reinterpret_cast<S*>(base) + int64_t(slot) * (f.kv_dim / kValuesPerElement<S>);
}

template <typename S>
__device__ __forceinline__ const S* entry_row(const KvBlockTable& t, int e, bool value)
{
    return entry_row<S>(t.blocks[e / t.format.block_entries], e % t.format.block_entries, t.format, value);
}

// Where value `column` of a row starts (a head's first value: a whole number of blocks).
template <typename S>
__device__ __forceinline__ const S* at_column(const S* row, int column)
{
    return row + column / kValuesPerElement<S>;
}

__device__ __forceinline__ float scale_of(Half h) { return __half2float(__ushort_as_half(h.bits)); }

// Value d of a row as float32.
__device__ __forceinline__ float load_value(const float* row, int d) { return row[d]; }
__device__ __forceinline__ float load_value(const __half* row, int d) { return __half2float(row[d]); }
__device__ __forceinline__ float load_value(const KvQ8Block* row, int d)
{
    const KvQ8Block& b = row[d / kKvBlockValues];
    return scale_of(b.scale) * float(b.q[d % kKvBlockValues]);
}
__device__ __forceinline__ float load_value(const KvQ4Block* row, int d)
{
    const KvQ4Block& b = row[d / kKvBlockValues];
    return scale_of(b.scale) * float(kv_q4_code(b, d % kKvBlockValues));
}

// Values d and d + 1 of a row (d even: the pair is aligned for a 4-byte half2 or an 8-byte
// float2 load, and never straddles two blocks).
__device__ __forceinline__ float2 load_pair(const float* p, int d) { return *reinterpret_cast<const float2*>(p + d); }
__device__ __forceinline__ float2 load_pair(const __half* p, int d)
{
    return __half22float2(*reinterpret_cast<const __half2*>(p + d));
}
__device__ __forceinline__ float2 load_pair(const KvQ8Block* row, int d)
{
    const KvQ8Block& b = row[d / kKvBlockValues];
    const float s = scale_of(b.scale);
    const int i = d % kKvBlockValues;
    return make_float2(s * float(b.q[i]), s * float(b.q[i + 1]));
}
__device__ __forceinline__ float2 load_pair(const KvQ4Block* row, int d)
{
    const KvQ4Block& b = row[d / kKvBlockValues];
    const float s = scale_of(b.scale);
    const int i = d % kKvBlockValues;
    return make_float2(s * float(kv_q4_code(b, i)), s * float(kv_q4_code(b, i + 1)));
}

// One 32-value block quantized by a warp, lane j holding value j, with the CPU's operations one
// by one (kv_entry_layout.h): the same scale and codes as store_values.
template <int MaxCode>
__device__ __forceinline__ int quantize_in_warp(float v, Half& scale)
{
    const float largest = warp_max(fabsf(v));
    const __half stored = __float2half_rn(fminf(__fdiv_rn(largest, float(MaxCode)), kKvLargestScale));
    const float s = __half2float(stored);
    const float inverse = s > 0.0f ? __fdiv_rn(1.0f, s) : 0.0f;
    if (threadIdx.x % 32 == 0)
        scale.bits = __half_as_ushort(stored);
    return min(max(__float2int_rn(__fmul_rn(v, inverse)), -MaxCode), MaxCode);
}

__device__ __forceinline__ void store_block(float v, KvQ8Block& b)
{
    b.q[threadIdx.x % 32] = static_cast<int8_t>(quantize_in_warp<kKvQ8MaxCode>(v, b.scale));
}
__device__ __forceinline__ void store_block(float v, KvQ4Block& b)
{
    const int code = quantize_in_warp<kKvQ4MaxCode>(v, b.scale);
    const int code_16_on = __shfl_down_sync(kFullWarp, code, kKvBlockValues / 2);
    const int lane = threadIdx.x % 32;
    if (lane < kKvBlockValues / 2)
        b.q[lane] = kv_q4_byte(code, code_16_on);
}

// Stores the n float32 values of `src` (n a multiple of 32 for blocks) as row `dst`. Every
// thread of the block calls it (blockDim a multiple of 32): elements go one a thread, blocks of
// 32 one a warp.
template <typename S>
__device__ __forceinline__ void store_row(const float* src, S* dst, int n)
{
    if constexpr (kValuesPerElement<S> == 1) {
        for (int i = threadIdx.x; i < n; i += blockDim.x)
            dst[i] = from_float<S>(src[i]);
    } else {
        const int lane = threadIdx.x % 32;
        for (int b = threadIdx.x / 32; b < n / kKvBlockValues; b += blockDim.x / 32)
            store_block(src[b * kKvBlockValues + lane], dst[b]);
    }
}

// Host side (kv_types_supported: kv_block_table.h). Calls f with a null pointer of `type`'s stored element: float, __half, KvQ8Block
// or KvQ4Block.
template <typename F>
void dispatch_stored(KvPrecision type, F&& f)
{
    switch (type) {
    case KvPrecision::F32: f(static_cast<float*>(nullptr)); break;
    case KvPrecision::F16: f(static_cast<__half*>(nullptr)); break;
    case KvPrecision::Q8: f(static_cast<KvQ8Block*>(nullptr)); break;
    case KvPrecision::Q4: f(static_cast<KvQ4Block*>(nullptr)); break;
    }
}

// Calls f with null pointers of the stored types of `format`'s keys and values, f(K*, V*),
// where entries of the precision's own type are T (the caller has checked kv_types_supported):
// a kernel built for one precision only instantiates that precision's types.
template <typename T, typename F>
void dispatch_stored_kv(const KvBlockFormat& format, F&& f)
{
    const auto stored = [](KvPrecision type, auto&& g) {
        if (type == KvPrecision::Q8)
            g(static_cast<KvQ8Block*>(nullptr));
        else if (type == KvPrecision::Q4)
            g(static_cast<KvQ4Block*>(nullptr));
        else
            g(static_cast<T*>(nullptr));
    };
    stored(format.key_type, [&](auto* k) { stored(format.value_type, [&](auto* v) { f(k, v); }); });
}

// Calls f with a null pointer of the element type T stands for in p and of the stored types
// of `format`'s keys and values: f(T*, K*, V*). Throws pyramid::Error for types the kernels are
// not built for (kv_types_supported).
template <typename F>
void dispatch_kv(Precision p, const KvBlockFormat& format, const char* what, F&& f)
{
    if (!kv_types_supported(p, format.key_type, format.value_type))
        throw Error(std::string(what) + ": KV entries of keys " + kv_precision_name(format.key_type) + " and values " +
                    kv_precision_name(format.value_type) + " under " + precision_name(p) +
                    " (each must be the precision's own type, q8 or q4)");
    dispatch(p, [&](auto* t) {
        using T = std::remove_pointer_t<decltype(t)>;
        dispatch_stored_kv<T>(format, [&](auto* k, auto* v) { f(t, k, v); });
    });
}

} // namespace pyramid::cuda
