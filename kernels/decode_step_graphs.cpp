#include "decode_step_graphs.h"

#include <exception>
#include <utility>

namespace pyramid::cuda {

void DecodeStepGraphs::announce()
{
    announced_ = true;
}

bool DecodeStepGraphs::step_begins()
{
    start_ = Clock::now();
    timed_.reset();
    recording_step_ = false;
    return std::exchange(announced_, false);
}

void DecodeStepGraphs::record_if_chosen(int batch)
{
    if (!stream_.graphs())
        return;
    recording_step_ = mode_ == StepGraphs::On || (mode_ == StepGraphs::Auto && choice_.record(batch));
    timed_ = TimedStep{batch, recording_step_};
}

void DecodeStepGraphs::run_layer(const DecodeLayerLaunch& launch, const std::function<void()>& queue)
{
    if (!recording_step_ || !stream_.graphs() || launch.layer < 0) {
        queue();
        return;
    }
    const size_t slot = static_cast<size_t>(launch.layer);
    if (recorded_.size() <= slot)
        recorded_.resize(slot + 1);
    std::optional<DecodeLayerLaunch>& recorded = recorded_[slot];
    if (recorded == launch && stream_.replay(launch.layer))
        return;
    recorded.reset();
    stream_.begin_recording(launch.layer);
    try {
        queue();
    } catch (...) {
        // What was queued runs, as it would have unrecorded; the error is the step's.
        try {
            stream_.end_recording();
        } catch (const std::exception&) {
            // The recording is lost along with the step that made it.
        }
        throw;
    }
    // Nothing in `queue` waited on the stream (which launches a recording part way): the graph
    // holds the whole layer and can be replayed.
    const bool whole = stream_.recording();
    stream_.end_recording();
    if (whole)
        recorded = launch;
}

void DecodeStepGraphs::step_done()
{
    if (!timed_)
        return;
    const std::chrono::duration<double> took = Clock::now() - start_;
    choice_.measured(timed_->batch, timed_->recorded, took.count());
    timed_.reset();
}

} // namespace pyramid::cuda
