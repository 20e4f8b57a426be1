#include "decode_step_graphs.h"

#include <utility>

namespace pyramid::cuda {

void DecodeStepGraphs::announce()
{
    stream_.end_recording();  // a step that failed may have left its recording open
    announced_ = true;
}

bool DecodeStepGraphs::step_begins()
{
    start_ = Clock::now();
    stream_.end_recording();
    timed_.reset();
    return std::exchange(announced_, false);
}

void DecodeStepGraphs::record_if_chosen(int batch)
{
    if (!stream_.graphs())
        return;
    if (mode_ == StepGraphs::On || (mode_ == StepGraphs::Auto && choice_.record(batch)))
        stream_.begin_recording();
    timed_ = TimedStep{batch, stream_.recording()};
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
