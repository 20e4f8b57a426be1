#pragma once
// Probe scores on their way from the device to the engine (Backend::wait_for_probes). Each
// layer step's scores are copied, in stream order, into a page-locked slot of their own, and an
// event marks the copy's end, so the host goes on queueing the next layers; deliver(layer)
// then waits for that layer's copy alone (and so every earlier one) and hands each piece to its
// vector, while the device goes on with the later layers. In a recording (a decode step as a
// CUDA graph) the events are the graph's external event nodes, and the first wait launches it.
// Slots and events are kept and reused: a decode step allocates nothing.
#include <cuda_runtime.h>

#include <vector>

#include "pinned_buffer.h"
#include "work_stream.h"

namespace pyramid::cuda {

class ProbeDownloads {
public:
    explicit ProbeDownloads(WorkStream& stream) : stream_(stream) {}
    ~ProbeDownloads();
    ProbeDownloads(const ProbeDownloads&) = delete;
    ProbeDownloads& operator=(const ProbeDownloads&) = delete;

    // Where a run of the downloaded scores goes: `length` floats from `offset`.
    struct Piece {
        std::vector<float>* out = nullptr;
        int offset = 0;
        int length = 0;
    };

    // Queues the copy of layer `layer`'s `entries` scores from `device`, which the stream may
    // overwrite after it.
    void queue(int layer, const float* device, int entries, std::vector<Piece> pieces);
    // Waits for the latest queued copy of `layer` and every copy queued before it, and writes
    // their pieces to their vectors; nothing when no copy of `layer` is waiting.
    void deliver(int layer);
    // Forgets the queued copies (a step that failed: their vectors may be gone), after they
    // finished, so their slots can be reused.
    void drop();

private:
    struct Slot {
        PinnedBuffer scores;
        cudaEvent_t copied = nullptr;  // recorded after the copy into `scores`
    };
    struct Pending {
        int layer = 0;
        std::vector<Piece> pieces;
    };

    WorkStream& stream_;
    std::vector<Slot> slots_;       // slot i serves pending_[i]
    std::vector<Pending> pending_;  // copies queued since every copy was last delivered
    size_t delivered_ = 0;          // pending_[0, delivered_) are in their vectors
};

} // namespace pyramid::cuda
