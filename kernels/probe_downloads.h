#pragma once
// Probe scores on their way from the device to the engine (Backend::wait_for_probes). Each
// layer step's scores are copied, in stream order, into a page-locked slot of their own, so
// the host goes on queueing the next layers; deliver() then synchronizes once and hands every
// piece to its vector. Slots are kept and reused: a decode step allocates nothing.
#include <cuda_runtime.h>

#include <vector>

#include "pinned_buffer.h"
#include "work_stream.h"

namespace pyramid::cuda {

class ProbeDownloads {
public:
    explicit ProbeDownloads(WorkStream& stream) : stream_(stream) {}

    // Where a run of the downloaded scores goes: `length` floats from `offset`.
    struct Piece {
        std::vector<float>* out = nullptr;
        int offset = 0;
        int length = 0;
    };

    // Queues the copy of `entries` scores from `device`, which the stream may overwrite after it.
    void queue(const float* device, int entries, std::vector<Piece> pieces);
    // Waits for every queued copy and writes each piece to its vector.
    void deliver();
    // Forgets the queued copies (a step that failed: their vectors may be gone), after they
    // finished, so their slots can be reused.
    void drop();

private:
    struct Pending {
        size_t slot = 0;
        std::vector<Piece> pieces;
    };

    WorkStream& stream_;
    std::vector<PinnedBuffer> slots_;  // slot i serves the i-th queued copy since the last wait
    std::vector<Pending> pending_;
};

} // namespace pyramid::cuda
