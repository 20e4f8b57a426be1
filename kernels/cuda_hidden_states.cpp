#include "cuda_hidden_states.h"

#include <algorithm>

#include "cuda_check.h"

namespace pyramid::cuda {

DeviceBuffer HiddenBufferPool::take(size_t bytes)
{
    if (kept_.data() && kept_.bytes() >= bytes)
        return std::move(kept_);
    drop_kept();
    return DeviceBuffer(std::max<size_t>(bytes, 1), "hidden states");
}

void HiddenBufferPool::give(DeviceBuffer buffer)
{
    if (!buffer.data() || buffer.bytes() <= kept_.bytes()) {
        if (buffer.data())
            stream_.settle();  // kernels queued earlier may still use it
        return;
    }
    drop_kept();
    kept_ = std::move(buffer);
}

void HiddenBufferPool::drop_kept()
{
    if (!kept_.data())
        return;
    stream_.settle();
    kept_ = DeviceBuffer();
}

CudaHiddenStates::CudaHiddenStates(HiddenBufferPool& pool, int rows, int dim)
    : pool_(pool), buffer_(pool.take(static_cast<size_t>(rows) * static_cast<size_t>(dim) * sizeof(float))), rows_(rows)
{
}

CudaHiddenStates::~CudaHiddenStates() { pool_.give(std::move(buffer_)); }

} // namespace pyramid::cuda
