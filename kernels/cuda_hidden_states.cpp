#include "cuda_hidden_states.h"

#include <algorithm>

#include "cuda_check.h"

namespace pyramid::cuda {

DeviceBuffer HiddenBufferPool::take(size_t bytes)
{
    // The smallest spare that fits, so a long prompt's buffer stays free for the next one.
    auto best = spare_.end();
    for (auto it = spare_.begin(); it != spare_.end(); ++it)
        if (it->bytes() >= bytes && (best == spare_.end() || it->bytes() < best->bytes()))
            best = it;
    if (best == spare_.end())
        return DeviceBuffer(std::max<size_t>(bytes, 1), "hidden states");
    DeviceBuffer out = std::move(*best);
    spare_.erase(best);
    return out;
}

void HiddenBufferPool::give(DeviceBuffer buffer)
{
    if (!buffer.data())
        return;
    spare_.push_back(std::move(buffer));
    if (spare_.size() > max_spare_) {
        // Kernels queued earlier may still use the buffer that is dropped.
        cudaStreamSynchronize(stream_);
        spare_.erase(std::min_element(spare_.begin(), spare_.end(),
                                      [](const DeviceBuffer& a, const DeviceBuffer& b) { return a.bytes() < b.bytes(); }));
    }
}

CudaHiddenStates::CudaHiddenStates(HiddenBufferPool& pool, int rows, int dim)
    : pool_(pool), buffer_(pool.take(static_cast<size_t>(rows) * static_cast<size_t>(dim) * sizeof(float))), rows_(rows)
{
}

CudaHiddenStates::~CudaHiddenStates() { pool_.give(std::move(buffer_)); }

} // namespace pyramid::cuda
