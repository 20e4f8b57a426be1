#include "block_upload.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "backend/device_weight_layout.h"
#include "cuda_check.h"

namespace pyramid::cuda {
namespace {

constexpr size_t kStagingGroups = (16u << 20) / kDeviceQ6KGroupBytes;  // 16 MiB of host staging

// Q6_K blocks [first, first + count) (count <= 8, first a multiple of 8) as one device group:
// their bytes before d one after another, then their d's, the rest of a short group zeroed.
void regroup_q6k(const std::byte* blocks, int64_t count, std::byte* group)
{
    using L = block_layout::Q6_K;
    std::memset(group, 0, kDeviceQ6KGroupBytes);
    for (int64_t i = 0; i < count; ++i) {
        const std::byte* block = blocks + i * L::kBytes;
        std::memcpy(group + i * kDeviceQ6KBlockBytes, block, kDeviceQ6KBlockBytes);
        std::memcpy(group + kDeviceQ6KGroupDs + i * block_layout::kHalf, block + L::kD, block_layout::kHalf);
    }
}

} // namespace

void upload_blocks(TensorType type, const void* host, int64_t blocks, void* device, const std::string& what)
{
    if (!is_block_quantized(type))
        throw Error("upload of " + what + ": " + std::string(tensor_type_traits(type).name) +
                    " is not a quantized block type");
    const auto* from = static_cast<const std::byte*>(host);
    auto* to = static_cast<std::byte*>(device);
    if (type != TensorType::Q6_K) {
        check(cudaMemcpy(to, from, device_blocks_bytes(type, blocks), cudaMemcpyHostToDevice),
              ("upload of " + what).c_str());
        return;
    }
    const int64_t groups = (blocks + kDeviceQ6KGroupBlocks - 1) / kDeviceQ6KGroupBlocks;
    std::vector<std::byte> staging(std::min<size_t>(size_t(groups), kStagingGroups) * kDeviceQ6KGroupBytes);
    for (int64_t g0 = 0; g0 < groups; g0 += int64_t(kStagingGroups)) {
        const int64_t slice = std::min<int64_t>(int64_t(kStagingGroups), groups - g0);
        for (int64_t g = 0; g < slice; ++g) {
            const int64_t first = (g0 + g) * kDeviceQ6KGroupBlocks;
            regroup_q6k(from + first * block_layout::Q6_K::kBytes,
                        std::min<int64_t>(kDeviceQ6KGroupBlocks, blocks - first),
                        staging.data() + g * kDeviceQ6KGroupBytes);
        }
        check(cudaMemcpy(to + g0 * kDeviceQ6KGroupBytes, staging.data(), size_t(slice) * kDeviceQ6KGroupBytes,
                         cudaMemcpyHostToDevice),
              ("upload of " + what).c_str());
    }
}

} // namespace pyramid::cuda
