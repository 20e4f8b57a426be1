#include "block_upload.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "backend/device_weight_layout.h"
#include "cuda_check.h"

namespace pyramid::cuda {
namespace {

constexpr size_t kStagingBytes = 16u << 20;  // host staging for the grouped types

// Blocks [0, count) (count <= 8) of layout L as one device group: their bodies one after
// another, then their d's; the rest of a short group zeroed.
template <typename L>
void regroup(const std::byte* blocks, int64_t count, std::byte* group)
{
    constexpr int body = kDeviceBodyBytes<L>;
    std::memset(group, 0, size_t(kDeviceGroupBlocks) * L::kBytes);
    for (int64_t i = 0; i < count; ++i) {
        const std::byte* block = blocks + i * L::kBytes;
        std::memcpy(group + i * body, block + kDeviceBodyStart<L>, body);
        std::memcpy(group + kDeviceGroupBlocks * body + i * block_layout::kHalf, block + L::kD, block_layout::kHalf);
    }
}

template <typename L>
void upload_groups(const std::byte* from, int64_t blocks, std::byte* to, const std::string& what)
{
    constexpr size_t group_bytes = size_t(kDeviceGroupBlocks) * L::kBytes;
    const int64_t groups = (blocks + kDeviceGroupBlocks - 1) / kDeviceGroupBlocks;
    const auto per_slice = static_cast<int64_t>(std::max<size_t>(1, kStagingBytes / group_bytes));
    std::vector<std::byte> staging(size_t(std::min(groups, per_slice)) * group_bytes);
    for (int64_t g0 = 0; g0 < groups; g0 += per_slice) {
        const int64_t slice = std::min(per_slice, groups - g0);
        for (int64_t g = 0; g < slice; ++g) {
            const int64_t first = (g0 + g) * kDeviceGroupBlocks;
            regroup<L>(from + first * L::kBytes, std::min<int64_t>(kDeviceGroupBlocks, blocks - first),
                       staging.data() + g * group_bytes);
        }
        check(cudaMemcpy(to + g0 * group_bytes, staging.data(), size_t(slice) * group_bytes, cudaMemcpyHostToDevice),
              ("upload of " + what).c_str());
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
    static_assert(device_groups_blocks(TensorType::Q4_0) && device_groups_blocks(TensorType::Q8_0) &&
                      device_groups_blocks(TensorType::Q6_K),
                  "the grouped types below are device_weight_layout.h's");
    switch (type) {
    case TensorType::Q4_0: upload_groups<block_layout::Q4_0>(from, blocks, to, what); return;
    case TensorType::Q8_0: upload_groups<block_layout::Q8_0>(from, blocks, to, what); return;
    case TensorType::Q6_K: upload_groups<block_layout::Q6_K>(from, blocks, to, what); return;
    default:
        check(cudaMemcpy(to, from, device_blocks_bytes(type, blocks), cudaMemcpyHostToDevice),
              ("upload of " + what).c_str());
    }
}

} // namespace pyramid::cuda
