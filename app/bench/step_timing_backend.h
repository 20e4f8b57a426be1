#pragma once
// The bench's backend, timed: how long the host takes to queue a step's layers, from embed()
// to the logits call (whose download is the step's first wait for the device, now that probe
// scores arrive late). On a GPU, a decode step whose queueing takes about as long as the whole
// step is bound by kernel launches, not by the device: the case for CUDA graphs. On the CPU,
// queueing is the computing itself. And how long the host works after a decode step's probe
// scores arrived (the policies' selections, the compactions they queue), which on a GPU is time
// the device waits for the next step unless the compactions fill it. It also decides whether
// the backend hears of decode steps before they come (begin_decode_step: CUDA graphs), so one
// run can time both ways.
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
    StepTimingBackend(Backend& inner, bool announce_decode_steps)
        : ForwardingBackend(inner), announce_decode_steps_(announce_decode_steps)
    {
    }

    void begin_decode_step() override
    {
        if (announce_decode_steps_)
            ForwardingBackend::begin_decode_step();
    }

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

    void wait_for_probes() override
    {
        ForwardingBackend::wait_for_probes();
        probes_arrived_ = Clock::now();
    }

    // Seconds spent queueing layers since the last call.
    double take_queue_seconds() { return std::exchange(queued_, 0.0); }

    // Seconds since the step's last probe scores arrived (0 if none did since the last call):
    // to be called as the step returns.
    double take_selection_seconds()
    {
        const double seconds =
            probes_arrived_ ? std::chrono::duration<double>(Clock::now() - *probes_arrived_).count() : 0.0;
        probes_arrived_.reset();
        return seconds;
    }

private:
    using Clock = std::chrono::steady_clock;

    void end_queueing()
    {
        if (step_start_)
            queued_ += std::chrono::duration<double>(Clock::now() - *step_start_).count();
        step_start_.reset();
    }

    bool announce_decode_steps_;
    std::optional<Clock::time_point> step_start_;
    double queued_ = 0;
    std::optional<Clock::time_point> probes_arrived_;
};

} // namespace pyramid::bench
