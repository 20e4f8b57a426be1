#include "util/turn_lock.h"

#include <algorithm>

namespace pyramid {

bool TurnLock::lock_unless(const std::atomic<bool>* give_up)
{
    std::unique_lock lock(mutex_);
    const uint64_t ticket = next_ticket_++;
    queue_.push_back(ticket);
    turn_.wait(lock, [&] { return (!held_ && queue_.front() == ticket) || (give_up && give_up->load()); });
    if (!held_ && queue_.front() == ticket) {
        queue_.pop_front();
        held_ = true;
        turn_.notify_all();  // the next waiter is now at the front, waiting for unlock()
        return true;
    }
    queue_.erase(std::find(queue_.begin(), queue_.end(), ticket));
    turn_.notify_all();  // the one behind may be at the front now
    return false;
}

bool TurnLock::try_lock()
{
    std::lock_guard lock(mutex_);
    if (held_ || !queue_.empty())
        return false;
    held_ = true;
    return true;
}

void TurnLock::unlock()
{
    {
        std::lock_guard lock(mutex_);
        held_ = false;
    }
    turn_.notify_all();
}

void TurnLock::wake_waiters()
{
    // Taking the mutex orders the flag's store before the waiters' check.
    { std::lock_guard lock(mutex_); }
    turn_.notify_all();
}

} // namespace pyramid
