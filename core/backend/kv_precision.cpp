#include "backend/kv_precision.h"

#include "util/error.h"

namespace pyramid {

KvPrecision parse_kv_precision(const std::string& text)
{
    if (text == "f32")
        return KvPrecision::F32;
    if (text == "f16")
        return KvPrecision::F16;
    throw Error("unknown KV cache precision '" + text + "' (known: f16, f32)");
}

const char* kv_precision_name(KvPrecision precision) { return precision == KvPrecision::F16 ? "f16" : "f32"; }

size_t kv_element_bytes(KvPrecision precision) { return precision == KvPrecision::F16 ? 2 : 4; }

} // namespace pyramid
