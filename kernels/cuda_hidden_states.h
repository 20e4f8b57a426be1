#pragma once
// Hidden states on the GPU: float32 [rows, dim], the residual stream of the rows in flight.
// Their buffers come from a small recycling pool so a decode step (one new HiddenStates per
// token) allocates nothing. Hidden states must not outlive their backend.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "backend/backend.h"
#include "device_buffer.h"

namespace pyramid::cuda {

class HiddenBufferPool {
public:
    // Keeps at most `max_spare` buffers (StepBufferLayout::hidden_spares) for reuse.
    HiddenBufferPool(cudaStream_t stream, int max_spare)
        : stream_(stream), max_spare_(static_cast<size_t>(std::max(max_spare, 0)))
    {
        spare_.reserve(max_spare_ + 1);
    }
    // A buffer of at least `bytes`, reused when one is spare.
    DeviceBuffer take(size_t bytes);
    void give(DeviceBuffer buffer);

private:
    cudaStream_t stream_;
    size_t max_spare_;
    std::vector<DeviceBuffer> spare_;
};

class CudaHiddenStates final : public HiddenStates {
public:
    CudaHiddenStates(HiddenBufferPool& pool, int rows, int dim);
    ~CudaHiddenStates() override;
    CudaHiddenStates(const CudaHiddenStates&) = delete;
    CudaHiddenStates& operator=(const CudaHiddenStates&) = delete;

    int rows() const override { return rows_; }
    float* data() const { return buffer_.as<float>(); }
    // After a gather: the first `rows` rows are the live ones.
    void set_rows(int rows) { rows_ = rows; }

private:
    HiddenBufferPool& pool_;
    DeviceBuffer buffer_;
    int rows_;
};

} // namespace pyramid::cuda
