#pragma once
// The stream a CUDA backend queues its work on, able to record work as CUDA graphs and launch
// them again.
//
// A decode step is about 19 launches and copies a layer, some 600 for a 7B model. Queued one
// by one, at batch 1 the host's cost per launch can exceed the GPU's time per kernel, and the
// GPU waits for the host. Recorded (stream capture) into a slot, the work goes to the GPU as one
// graph launch, and replay(slot) launches it again without recording: the host's cost is then
// one call however many kernels the graph holds. A slot's next recording updates its executable
// graph in place when it holds the same kernels and copies in the same order (only arguments and
// grids differ), which costs far less than instantiating one. Whoever replays must know that the
// recorded arguments are still right: decode_step_graphs.h keeps what each slot was recorded for.
//
// A recording never changes what runs or in which order: work is recorded in stream order and
// launched in that order. Whatever needs the host to wait for the stream, or to free or reuse
// memory that recorded work still reads (a buffer growing, a staging block coming round again),
// ends the recording first, launching it, and the rest is queued as usual.
// Allocations during a recording are allowed (relaxed capture): the memory is new.
//
// It also says how this library's kernels are launched on it (kernels()): with or without
// overlapping the kernel before them (kernel_stream.h).
#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

#include "kernel_stream.h"

namespace pyramid::cuda {

class WorkStream {
public:
    // `stream` stays the caller's and must outlive this. Steps are recorded only when `graphs`
    // is true (never on the legacy stream, which cannot capture). Kernels are launched to
    // overlap the one before them when `overlap_launches` is (the caller knows the device
    // supports it: compute capability 9.0 or later).
    explicit WorkStream(cudaStream_t stream, bool graphs = false, bool overlap_launches = false);
    ~WorkStream();
    WorkStream(const WorkStream&) = delete;
    WorkStream& operator=(const WorkStream&) = delete;

    cudaStream_t get() const { return stream_; }
    // The stream as this library's kernels are to be launched on it.
    KernelStream kernels() const { return {stream_, overlap_launches_}; }

    // Waits for everything queued or recorded. Throws pyramid::Error naming `what`.
    void synchronize(const char* what);
    // The same for destructors: never throws (failures surface at the next checked call).
    void settle() noexcept;

    // Records the work queued from now on into graph `slot` (>= 0) when graphs are on and no
    // recording is open.
    void begin_recording(int slot = 0);
    bool recording() const { return recording_; }
    // Launches what was recorded, as the slot's graph; nothing when no recording is open. Throws
    // pyramid::Error when the recording failed (its work is lost: the step must be given up)
    // and then records no more.
    void end_recording();
    // Launches the slot's graph as last recorded, again; false, launching nothing, when graphs
    // are off, a recording is open or the slot has no graph.
    bool replay(int slot);

    // Records what `queue` queues, launches it and waits for it, apart from the steps' graph and
    // counts: a trial before any step depends on a recording. Returns "" when it ran; else why
    // not, and records no more.
    std::string trial_recording(const std::function<void()>& queue);

    bool graphs() const { return graphs_; }
    struct GraphCounts {
        long long launched = 0;      // graphs launched: recorded, or replayed
        long long updated = 0;       // recorded and run by updating the slot's executable graph
        long long instantiated = 0;  // recorded and instantiated anew (first, or different kernels)
        long long replayed = 0;      // launched again as recorded, without recording
    };
    GraphCounts graph_counts() const { return counts_; }

private:
    // Runs `graph` through the slot's executable graph, updated in place or instantiated anew.
    void launch(int slot, cudaGraph_t graph);

    cudaStream_t stream_;
    bool graphs_;
    bool overlap_launches_;
    bool recording_ = false;
    int slot_ = 0;                         // of the open recording
    std::vector<cudaGraphExec_t> execs_;  // by slot; null: none yet
    GraphCounts counts_;
};

} // namespace pyramid::cuda
