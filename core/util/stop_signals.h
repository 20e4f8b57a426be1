#pragma once
// SIGINT, SIGTERM and SIGHUP (Ctrl+C, `kill`, a session's logout or a closed terminal) turned
// into an orderly stop of a program that has something to finish first: the server its
// connections, the desktop app the reply it is streaming and the drafts typed.
//
// Made first thing in main, before any other thread starts, StopSignals blocks the three in
// every thread that comes after and waits for them on a thread of its own. While a Handling
// returned by handle() lives, the first signal calls its `stop(signal)` on that thread (so
// `stop` must be safe to call from any thread: post to an event loop, stop a server); without
// one (before the program is ready, and once it is tearing down), or on a second signal, the
// process ends at once with status 128 + the signal, as it would have without StopSignals.
#include <signal.h>

#include <functional>
#include <mutex>
#include <thread>

namespace pyramid {

class StopSignals {
public:
    StopSignals();
    // Stops waiting and unblocks the signals in the destroying thread.
    ~StopSignals();
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

    // While it lives, a signal calls the stop handed to handle(). Destroy it before what that
    // function reaches goes away.
    class Handling {
    public:
        Handling(Handling&& other) noexcept : owner_(other.owner_) { other.owner_ = nullptr; }
        Handling& operator=(Handling&&) = delete;
        ~Handling();

    private:
        friend class StopSignals;
        explicit Handling(StopSignals* owner) : owner_(owner) {}
        StopSignals* owner_;
    };
    [[nodiscard]] Handling handle(std::function<void(int signal)> stop);

private:
    void wait_for_signals();

    sigset_t signals_;
    std::mutex mutex_;  // guards what follows it
    std::function<void(int)> stop_;
    bool stopping_ = false;  // a signal has called stop_
    bool done_ = false;      // the destructor runs: the waiter returns
    std::thread waiter_;
};

} // namespace pyramid
