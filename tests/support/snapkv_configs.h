#pragma once
// The SnapKV and PyramidKV configurations the policy tests build: an observation window and a
// pooling kernel, everything else at its default.
#include "kv/compression_config.h"

namespace pyramid::test {

// kind is SnapKV or PyramidKV.
inline CompressionConfig snapkv_config(CompressionPolicyKind kind, int window, int kernel)
{
    CompressionConfig c;
    c.policy = kind;
    c.observation_window = window;
    c.pooling_kernel = kernel;
    return c;
}

} // namespace pyramid::test
