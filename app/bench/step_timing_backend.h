#pragma once
// The bench's backend, timed: how long the host takes to queue a step's layers, from embed()
// to its first wait for the device (a probe wait, or the logits call, whose download is the
// step's only wait where nothing is probed). On a GPU, a decode step whose queueing takes about
// as long as the whole step is bound by kernel launches, not by the device: the case for CUDA
// graphs. On the CPU, queueing is the computing itself. And how long the host works on the
// probe scores once they arrived (the policies' selections, the compactions they queue), from
// each probe wait to the next wait: on a GPU a decode step's selections overlap the device's
// later layers, so this is host time the device may or may not wait for (compare ms/token).
// It also decides whether the backend hears of decode steps before they come
// (begin_decode_step: CUDA graphs), so one run can time both ways.
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
        waits_begin();
        return ForwardingBackend::logits_rows(hidden, rows);
    }
    std::vector<TopLogits> top_logits_rows(const HiddenStates& hidden, std::span<const int> rows, int k) override
    {
        waits_begin();
        return ForwardingBackend::top_logits_rows(hidden, rows, k);
    }

    void wait_for_probes(int layer) override
    {
        waits_begin();
        ForwardingBackend::wait_for_probes(layer);
        probes_arrived_ = Clock::now();
    }

    // Seconds spent queueing layers since the last call.
    double take_queue_seconds() { return std::exchange(queued_, 0.0); }
    // Seconds spent on probe scores since the last call.
    double take_selection_seconds() { return std::exchange(selecting_, 0.0); }

private:
    using Clock = std::chrono::steady_clock;

    static double seconds_since(std::optional<Clock::time_point>& start)
    {
        const double seconds = start ? std::chrono::duration<double>(Clock::now() - *start).count() : 0.0;
        start.reset();
        return seconds;
    }
    // The host is about to wait for the device: queueing, or working on the last scores, ends.
    void waits_begin()
    {
        queued_ += seconds_since(step_start_);
        selecting_ += seconds_since(probes_arrived_);
    }

    bool announce_decode_steps_;
    std::optional<Clock::time_point> step_start_;
    double queued_ = 0;
    std::optional<Clock::time_point> probes_arrived_;
    double selecting_ = 0;
};

} // namespace pyramid::bench
