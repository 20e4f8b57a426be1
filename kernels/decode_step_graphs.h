#pragma once
// How the CUDA backend's decode steps become CUDA graphs (work_stream.h), as
// CudaBackendOptions::graphs says: always, never, or whichever way GraphChoice measures faster.
//
// A recorded step runs each layer's work as that layer's graph (a slot of the work stream per
// layer). The layer's launch (decode_layer_launch.h) says what its kernels are launched with;
// while it equals the launch the layer's graph was recorded for, the graph is replayed and the
// layer's kernels are not queued at all, so a steady conversation costs the host one graph launch
// a layer. A layer whose launch changed (a batch of another size, caches past a doubling of the
// attention grids, a grown workspace) is recorded anew, updating its graph in place. The rest of
// a step (the embedding, the logits, the probe downloads, uploads) is queued as usual, between
// the graphs, in stream order; the GPU runs a layer while the host prepares the next.
//
// The engine announces a decode step (Backend::begin_decode_step); every step starts at embed();
// an announced one is recorded when chosen, and its time from embed() to its logits on the host
// goes to the choice.
#include <chrono>
#include <functional>
#include <optional>
#include <vector>

#include "backend/cuda_backend_options.h"
#include "decode_layer_launch.h"
#include "graph_choice.h"
#include "work_stream.h"

namespace pyramid::cuda {

class DecodeStepGraphs {
public:
    DecodeStepGraphs(WorkStream& stream, StepGraphs mode) : stream_(stream), mode_(mode) {}

    // Backend::begin_decode_step().
    void announce();
    // The start of embed(). Returns whether this step was announced.
    bool step_begins();
    // An announced step of `batch` sequences, before its first work: recorded if so chosen.
    void record_if_chosen(int batch);
    // One layer of a step whose rows all decode: `queue` queues exactly the work `launch`
    // describes. In a recorded step the layer's graph is replayed when it was recorded for an
    // equal launch (queue is not called), else `queue` is recorded as the layer's graph and
    // launched; in any other step `queue` runs as it is. What `queue` throws is rethrown once
    // the work it queued is launched.
    void run_layer(const DecodeLayerLaunch& launch, const std::function<void()>& queue);
    // The buffers behind recorded launches were replaced (Workspace is made anew): record again.
    void forget_layers() { recorded_.clear(); }
    // Its logits are on the host.
    void step_done();

    const GraphChoice& choice() const { return choice_; }

private:
    using Clock = std::chrono::steady_clock;
    struct TimedStep {
        int batch = 0;
        bool recorded = false;
    };

    WorkStream& stream_;
    StepGraphs mode_;
    GraphChoice choice_;
    bool announced_ = false;
    bool recording_step_ = false;  // the step under way runs its layers as graphs
    Clock::time_point start_;
    std::optional<TimedStep> timed_;  // the decode step under way
    // By layer: the launch its graph was recorded for, whole (nullopt: none to replay).
    std::vector<std::optional<DecodeLayerLaunch>> recorded_;
};

} // namespace pyramid::cuda
