#include "util/stop_signals.h"

#include <pthread.h>

#include <cstdlib>

namespace pyramid {

StopSignals::StopSignals()
{
    sigemptyset(&signals_);
    for (int signal : {SIGINT, SIGTERM, SIGHUP})
        sigaddset(&signals_, signal);
    pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
    waiter_ = std::thread([this] { wait_for_signals(); });
}

void StopSignals::wait_for_signals()
{
    for (;;) {
        int signal = 0;
        sigwait(&signals_, &signal);
        // Called under the lock, so that a Handling being destroyed waits for the call to end.
        std::lock_guard lock(mutex_);
        if (done_)
            return;
        if (!stop_ || stopping_)
            std::_Exit(128 + signal);
        stopping_ = true;
        stop_(signal);
    }
}

StopSignals::Handling StopSignals::handle(std::function<void(int)> stop)
{
    std::lock_guard lock(mutex_);
    stop_ = std::move(stop);
    return Handling(this);
}

StopSignals::Handling::~Handling()
{
    if (owner_ == nullptr)
        return;
    std::lock_guard lock(owner_->mutex_);
    owner_->stop_ = nullptr;
}

StopSignals::~StopSignals()
{
    {
        std::lock_guard lock(mutex_);
        done_ = true;
    }
    pthread_kill(waiter_.native_handle(), SIGTERM);  // wakes it if no signal came
    waiter_.join();
    pthread_sigmask(SIG_UNBLOCK, &signals_, nullptr);
}

} // namespace pyramid
