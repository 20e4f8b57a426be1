#include "backend/cuda_backend_options.h"

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

} // namespace pyramid::cuda
