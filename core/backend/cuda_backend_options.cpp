#include "backend/cuda_backend_options.h"

#include <cstdlib>

#include "util/error.h"

namespace pyramid::cuda {

Precision parse_precision(const std::string& text)
{
    if (text == "fp16")
        return Precision::Fp16;
    if (text == "fp32")
        return Precision::Fp32;
    throw Error("unknown CUDA precision '" + text + "' (known: fp16, fp32)");
}

KvTypes cuda_stored_kv_types(KvTypes wanted, Precision p)
{
    const auto nearest = [own = own_kv_precision(p)](KvPrecision t) {
        return t == KvPrecision::Q8 || t == KvPrecision::Q4 ? t : own;
    };
    return {nearest(wanted.k), nearest(wanted.v)};
}

std::optional<KvTypes> cuda_kv_types_for(KvTypes wanted, Precision p)
{
    const KvTypes types = cuda_stored_kv_types(wanted, p);
    if (types == KvTypes(own_kv_precision(p)))
        return std::nullopt;
    return types;
}

StepGraphs parse_step_graphs(const std::string& text)
{
    if (text == "on")
        return StepGraphs::On;
    if (text == "off")
        return StepGraphs::Off;
    if (text == "auto")
        return StepGraphs::Auto;
    throw Error("unknown CUDA graph mode '" + text + "' (known: on, off, auto)");
}

bool parse_on_off(const std::string& text, const std::string& what)
{
    if (text == "on")
        return true;
    if (text == "off")
        return false;
    throw Error("unknown " + what + " '" + text + "' (known: on, off)");
}

int parse_chunk_rows(const std::string& text)
{
    if (text == "auto")
        return 0;
    char* end = nullptr;
    const long rows = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || rows < 1 || rows > kMaxChunkRows)
        throw Error("rows a layer runs at once are a number from 1 to " + std::to_string(kMaxChunkRows) +
                    " or 'auto', not '" + text + "'");
    return static_cast<int>(rows);
}

} // namespace pyramid::cuda
