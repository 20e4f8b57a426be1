#pragma once
// How the CPU matmul kernels run: on which instruction set, and how quantized weights meet
// the activations. The build targets baseline x86-64 (SSE2), so the AVX2 and AVX-512 kernels
// are compiled with function-level target attributes and chosen at run time, only on a CPU
// that has their features.
#include <string_view>

namespace pyramid::cpu {

enum class KernelIsa {
    Generic,  // portable C++ (the compiler's SSE2 vectorisation on x86-64)
    Avx2,     // AVX2 + FMA + F16C
    // AVX2 + FMA + F16C + AVX512F/BW/VL + AVX512_VNNI: the int8 dot of the types that have
    // a VNNI kernel (int8_lanes_vnni.h for prompts, int8_token_rows_vnni.h for one token) uses
    // vpdpbusd, the float32 products of two or more tokens AVX-512 FMA (quant_matmul.h), a
    // prompt's attention scores AVX-512 over key tiles (key_tiles.h, the AVX2 kernels' floats);
    // everything else, and int8 products of 2-4 tokens, runs the AVX2 kernels. Unlike Generic
    // and Avx2, it gives up batch invariance in the int8 dot: one token, a few and a lane group
    // of a prompt sum a token's block terms in three orders, so a sequence's logits differ by
    // float32 rounding (within 2e-6 of the sum of |terms|, quant_kernels_test) between running
    // alone and in a batch. The float32 products keep it.
    Avx512Vnni,
};

enum class QuantizedDot {
    // Weights decoded to float32 a tile at a time, bit-identical to to_float: the products of
    // the dequantized float32 model, summed in float32 (quant_matmul.h).
    Exact,
    // Activations rounded to int8 per block of 32 (like ggml's Q8_0) and dotted with the
    // quantized weights in integers (int8_matmul.h): several times faster, logits off by
    // about 1e-2 relative (docs/perf/cpu-quantized.md). Only with runs_avx2 and for the types
    // int8_matmul_supported() names; other types run Exact.
    Int8,
};

std::string_view kernel_isa_name(KernelIsa isa);     // "generic", "avx2", "avx512vnni"
std::string_view quantized_dot_name(QuantizedDot d);  // "exact", "int8"

// Whether this CPU can run the kernels of `isa` (Generic always can).
bool kernel_isa_supported(KernelIsa isa);

// Whether `isa` runs the AVX2 kernels (Avx512Vnni does, wherever it has none of its own).
constexpr bool runs_avx2(KernelIsa isa) { return isa == KernelIsa::Avx2 || isa == KernelIsa::Avx512Vnni; }

struct KernelConfig {
    KernelIsa isa = KernelIsa::Generic;
    QuantizedDot quantized_dot = QuantizedDot::Exact;
};

// The best kernels this CPU can run: Avx512Vnni, else AVX2, with the Int8 dot where the CPU
// has AVX2, FMA and F16C; else Generic and Exact. A property of the hardware, not a choice: a program that lets
// its environment choose otherwise does so at its edge (backend_environment.h) and passes the
// result in.
KernelConfig best_kernel_config();

} // namespace pyramid::cpu
