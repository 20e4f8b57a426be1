#pragma once
// The stream a CUDA backend queues its work on, able to record a decode step as a CUDA graph.
//
// A decode step is about 19 launches and copies a layer, some 600 for a 7B model. Queued one
// by one, at batch 1 the host's cost per launch can exceed the GPU's time per kernel, and the
// GPU waits for the host. Recorded (stream capture), the step goes to the GPU as one graph
// launch. The next step's recording updates the executable graph in place when it holds the
// same kernels and copies in the same order (only arguments and grids differ from step to
// step), which costs far less than instantiating one.
//
// A recording never changes what runs or in which order: work is recorded in stream order and
// launched in that order. Whatever needs the host to wait for the stream, or to free or reuse
// memory that recorded work still reads (a buffer growing, a staging block coming round again),
// ends the recording first, launching it, and the rest of the step is queued as usual.
// Allocations during a recording are allowed (relaxed capture): the memory is new.
#include <cuda_runtime.h>

#include <functional>
#include <string>

namespace pyramid::cuda {

class WorkStream {
public:
    // `stream` stays the caller's and must outlive this. Steps are recorded only when `graphs`
    // is true (never on the legacy stream, which cannot capture).
    explicit WorkStream(cudaStream_t stream, bool graphs = false);
    ~WorkStream();
    WorkStream(const WorkStream&) = delete;
    WorkStream& operator=(const WorkStream&) = delete;

    cudaStream_t get() const { return stream_; }

    // Waits for everything queued or recorded. Throws pyramid::Error naming `what`.
    void synchronize(const char* what);
    // The same for destructors: never throws (failures surface at the next checked call).
    void settle() noexcept;

    // Records the work queued from now on (when graphs are on and no recording is open).
    void begin_recording();
    bool recording() const { return recording_; }
    // Launches what was recorded, as one graph; nothing when no recording is open. Throws
    // pyramid::Error when the recording failed (its work is lost: the step must be given up)
    // and then records no more steps.
    void end_recording();

    // Records what `queue` queues, launches it and waits for it, apart from the steps' graph and
    // counts: a trial before any step depends on a recording. Returns "" when it ran; else why
    // not, and records no more.
    std::string trial_recording(const std::function<void()>& queue);

    bool graphs() const { return graphs_; }
    struct GraphCounts {
        long long launched = 0;      // recordings launched
        long long updated = 0;       // of them, run by updating the previous executable graph
        long long instantiated = 0;  // of them, instantiated anew (first, or different kernels)
    };
    GraphCounts graph_counts() const { return counts_; }

private:
    // Runs `graph` through the executable graph, updated in place or instantiated anew.
    void launch(cudaGraph_t graph);

    cudaStream_t stream_;
    bool graphs_;
    bool recording_ = false;
    cudaGraphExec_t exec_ = nullptr;
    GraphCounts counts_;
};

} // namespace pyramid::cuda
