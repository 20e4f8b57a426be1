#include "precision.h"

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

} // namespace pyramid::cuda
