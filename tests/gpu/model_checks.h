#pragma once
// What the whole-model GPU tests (test_gpu_model) hold logits to: fp32 within 1e-4 relative of
// the CPU backend, fp16 within 2e-2 (half precision keeps 11 significant bits of every weight
// and cached entry; the same bound the HF fp16 files meet). And whether two sessions hold the
// same caches.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "eval/replay.h"
#include "generate/inference_session.h"
#include "gpu_test.h"

namespace pyramid::gpu_test {

inline constexpr double kFp32Tolerance = 1e-4;
inline constexpr double kFp16Tolerance = 2e-2;

inline double tolerance(cuda::Precision p) { return p == cuda::Precision::Fp32 ? kFp32Tolerance : kFp16Tolerance; }

inline void check_logits(const std::string& what, const std::vector<float>& actual, const std::vector<float>& expected,
                         double tol)
{
    const double err = relative_error(actual, expected);
    std::printf("  %s: relative error %.3g\n", what.c_str(), err);
    GPU_CHECK(err <= tol, what + ": " + std::to_string(err) + " > " + std::to_string(tol));
}

// The same lengths and, in every layer, the same kept positions.
inline bool same_caches(const InferenceSession& a, const InferenceSession& b)
{
    if (a.cache().lengths() != b.cache().lengths())
        return false;
    for (int l = 0; l < a.cache().n_layers(); ++l) {
        const auto pa = a.cache().positions(l), pb = b.cache().positions(l);
        if (!std::equal(pa.begin(), pa.end(), pb.begin(), pb.end()))
            return false;
    }
    return true;
}

} // namespace pyramid::gpu_test
