#pragma once
// The environment variables that change how a backend runs, read in this one place. A program
// calls it at its edge (main, a test's set-up) and passes the result in; nothing inside the
// engine reads the environment.
//   PYRAMID_CPU_KERNELS=generic|avx2, PYRAMID_CPU_QUANT_DOT=exact|int8: the CPU's kernels
//     (kernel_config.h). A name that is unknown or cannot run on this CPU is logged and ignored,
//     as the kernels are only a matter of speed.
//   PYRAMID_CUDA_PRECISION=fp16|fp32, PYRAMID_CUDA_DEVICE=<index>, PYRAMID_CUDA_GRAPHS=on|off|auto,
//     PYRAMID_CUDA_OVERLAP=on|off, PYRAMID_CUDA_CHUNK_ROWS=<rows>|auto: the CUDA backend's
//     options (cuda_backend_options.h). A value that is not one of these is a pyramid::Error
//     naming the variable: they change what runs, not only how fast.
//   PYRAMID_BACKEND_DIR=<folder>: where the CUDA backend library is looked for first
//     (BackendOptions::plugin_dir).
//   OMP_NUM_THREADS=<count>: OpenMP's variable, which users set to bound a program's threads:
//     the CPU backend's threads where the program leaves them automatic
//     (BackendOptions::cpu_threads 0) instead of one per performance core (cpu_cores.h). Not a
//     count: logged and ignored.
#include "backend/backend_loader.h"

namespace pyramid {

// `options` with what the environment sets in place of its own values.
BackendOptions with_environment(BackendOptions options);

// `fallback` with what PYRAMID_CPU_KERNELS and PYRAMID_CPU_QUANT_DOT set.
cpu::KernelConfig kernel_config_from_environment(cpu::KernelConfig fallback = cpu::best_kernel_config());

} // namespace pyramid
