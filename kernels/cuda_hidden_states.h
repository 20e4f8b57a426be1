#pragma once
// Hidden states on the GPU: float32 [rows, dim], the residual stream of the rows in flight.
// Their buffers come from a recycling pool so a decode step (one new HiddenStates per token)
// allocates nothing. Hidden states must not outlive their backend.
#include <cuda_runtime.h>

#include "backend/backend.h"
#include "device_buffer.h"
#include "work_stream.h"

namespace pyramid::cuda {

// The engine runs one step at a time (InferenceSession::run_step holds one HiddenStates), so
// the pool keeps one buffer, the largest step's: a step takes it and gives it back. A step
// that needs more frees it before allocating, so device memory holds the largest step's rows
// once, as backend/step_memory.h counts them.
class HiddenBufferPool {
public:
    explicit HiddenBufferPool(WorkStream& stream) : stream_(stream) {}
    // A buffer of at least `bytes`: the kept one when it is large enough.
    DeviceBuffer take(size_t bytes);
    // Keeps `buffer` when it is larger than the one kept (or none is).
    void give(DeviceBuffer buffer);
    // Bytes of the kept buffer (0 while a step holds it).
    size_t bytes() const { return kept_.bytes(); }
    // Frees the kept buffer once kernels queued earlier are done with it.
    void drop_kept();

private:
    WorkStream& stream_;
    DeviceBuffer kept_;
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

// The CUDA backend's own hidden states, as the engine hands them back to it.
inline CudaHiddenStates& device_states(HiddenStates& h) { return static_cast<CudaHiddenStates&>(h); }
inline const CudaHiddenStates& device_states(const HiddenStates& h) { return static_cast<const CudaHiddenStates&>(h); }

} // namespace pyramid::cuda
