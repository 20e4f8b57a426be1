#pragma once
// Marks small inline functions that CUDA kernels call too (kernels/ compiles with nvcc); plain
// C++ elsewhere, so core stays free of CUDA.
#if defined(__CUDACC__)
#define PYRAMID_HOST_DEVICE __host__ __device__
#else
#define PYRAMID_HOST_DEVICE
#endif
