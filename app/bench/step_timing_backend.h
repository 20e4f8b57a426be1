#pragma once
// The bench's backend, timed: how long the host takes to queue a step's layers, from embed()
// to the logits call (whose download is the step's first wait for the device, now that probe
// scores arrive late). On a GPU, a decode step whose queueing takes about as long as the whole
// step is bound by kernel launches, not by the device: the case for CUDA graphs. On the CPU,
// queueing is the computing itself.
#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "backend/forwarding_backend.h"

namespace pyramid::bench {

class StepTimingBackend final : public ForwardingBackend {
public:
    using ForwardingBackend::ForwardingBackend;

    std::unique_ptr<HiddenStates> embed(std::span<const int32_t> tokens) override
    {
        step_start_ = Clock::now();
        return ForwardingBackend::embed(tokens);
    }
    std::vector<float> logits_rows(const HiddenStates& hidden, std::span<const int> rows) override
    {
        end_queueing();
        return ForwardingBackend::logits_rows(hidden, rows);
    }
    std::vector<TopLogits> top_logits_rows(const HiddenStates& hidden, std::span<const int> rows, int k) override
    {
        end_queueing();
        return ForwardingBackend::top_logits_rows(hidden, rows, k);
    }

    // Seconds spent queueing layers since the last call.
    double take_queue_seconds() { return std::exchange(queued_, 0.0); }

private:
    using Clock = std::chrono::steady_clock;

    void end_queueing()
    {
        if (step_start_)
            queued_ += std::chrono::duration<double>(Clock::now() - *step_start_).count();
        step_start_.reset();
    }

    std::optional<Clock::time_point> step_start_;
    double queued_ = 0;
};

} // namespace pyramid::bench
