#pragma once
// e^x over an array, the softmax's and SwiGLU's hot loop: on AVX2 and AVX-512 SLEEF's
// vectorised single-precision exp (its deterministic FMA form, within 1.0 ulp), 8 or 16 values
// an instruction sequence where the C library's expf takes one call each (about 10x slower on
// a Zen 4). SLEEF's deterministic functions give the same float for the same input on every
// instruction set that has FMA, so AVX2 and AVX-512 agree bit for bit, and a value's result
// never depends on where in the array it sits (a short tail runs through the same vector code).
// Generic: the C library's expf (correctly rounded in almost every case), whose results can
// differ from SLEEF's in the last bit.
#include <cstdint>

#include "backend/kernel_config.h"

namespace pyramid::cpu {

// v[i] = e^v[i] for i < n, with the kernels of `isa` (which must be supported here). Overflow
// gives +inf, underflow 0 (or a subnormal), NaN stays NaN.
void exp_in_place(float* v, int64_t n, KernelIsa isa);

} // namespace pyramid::cpu
