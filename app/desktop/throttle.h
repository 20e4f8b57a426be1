#pragma once
// Says when enough time has passed to publish again, so a fast producer (a token loop) can
// coalesce its updates to a rate the UI can draw (about 30 per second).
#include <chrono>

class Throttle {
public:
    explicit Throttle(std::chrono::milliseconds interval) : interval_(interval) {}

    // True at most once per interval; the first call is always due.
    bool due()
    {
        const auto now = std::chrono::steady_clock::now();
        if (started_ && now - last_ < interval_)
            return false;
        started_ = true;
        last_ = now;
        return true;
    }

private:
    std::chrono::milliseconds interval_;
    std::chrono::steady_clock::time_point last_{};
    bool started_ = false;
};
