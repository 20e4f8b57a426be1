#pragma once
// How the CUDA backend's decode steps become CUDA graphs (work_stream.h), as
// CudaBackendOptions::graphs says: always, never, or whichever way GraphChoice measures faster.
// The engine announces a decode step (Backend::begin_decode_step); every step starts at embed();
// an announced one is recorded from its first work on when chosen, and its time from embed() to
// its logits on the host goes to the choice.
#include <chrono>
#include <optional>

#include "backend/cuda_backend_options.h"
#include "graph_choice.h"
#include "work_stream.h"

namespace pyramid::cuda {

class DecodeStepGraphs {
public:
    DecodeStepGraphs(WorkStream& stream, StepGraphs mode) : stream_(stream), mode_(mode) {}

    // Backend::begin_decode_step().
    void announce();
    // The start of embed(): a recording still open is a failed step's, launched now (its work
    // runs in order, as it would have unrecorded). Returns whether this step was announced.
    bool step_begins();
    // An announced step of `batch` sequences, before its first work: recorded if so chosen.
    void record_if_chosen(int batch);
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
    Clock::time_point start_;
    std::optional<TimedStep> timed_;  // the decode step under way
};

} // namespace pyramid::cuda
