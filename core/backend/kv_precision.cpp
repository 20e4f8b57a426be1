#include "backend/kv_precision.h"

#include "backend/kv_entry_types.h"
#include "util/error.h"

namespace pyramid {

KvPrecision parse_kv_precision(const std::string& text)
{
    for (KvPrecision p : {KvPrecision::F32, KvPrecision::F16, KvPrecision::Q8, KvPrecision::Q4})
        if (text == kv_precision_name(p))
            return p;
    throw Error("unknown KV cache type '" + text + "' (known: f32, f16, q8, q4)");
}

const char* kv_precision_name(KvPrecision precision)
{
    switch (precision) {
    case KvPrecision::F32: return "f32";
    case KvPrecision::F16: return "f16";
    case KvPrecision::Q8: return "q8";
    case KvPrecision::Q4: return "q4";
    }
    return "?";
}

size_t kv_element_bytes(KvPrecision precision)
{
    if (precision == KvPrecision::F32)
        return 4;
    if (precision == KvPrecision::F16)
        return 2;
    throw Error(std::string("a ") + kv_precision_name(precision) +
                " KV cache has no whole number of bytes per value (it stores a scale per block)");
}

bool kv_values_fit(KvPrecision precision, int head_dim)
{
    if (precision == KvPrecision::F32 || precision == KvPrecision::F16)
        return head_dim > 0;
    return head_dim > 0 && head_dim % kKvBlockValues == 0;
}

size_t kv_row_bytes(KvPrecision precision, int values)
{
    if (!kv_values_fit(precision, values))
        throw Error(std::string("a ") + kv_precision_name(precision) + " KV cache stores rows of a multiple of " +
                    std::to_string(kKvBlockValues) + " values; this model's heads have " + std::to_string(values));
    const size_t blocks = static_cast<size_t>(values) / kKvBlockValues;
    switch (precision) {
    case KvPrecision::Q8: return blocks * sizeof(KvQ8Block);
    case KvPrecision::Q4: return blocks * sizeof(KvQ4Block);
    default: return static_cast<size_t>(values) * kv_element_bytes(precision);
    }
}

std::string kv_types_name(const KvTypes& types)
{
    if (types.k == types.v)
        return kv_precision_name(types.k);
    return std::string("K ") + kv_precision_name(types.k) + ", V " + kv_precision_name(types.v);
}

size_t kv_entry_bytes(const KvTypes& types, int n_kv_heads, int head_dim)
{
    return static_cast<size_t>(n_kv_heads) * (kv_row_bytes(types.k, head_dim) + kv_row_bytes(types.v, head_dim));
}

} // namespace pyramid
