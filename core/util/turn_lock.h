#pragma once
// A mutex that lets its waiters in the order they came (first come, first served), so that a
// thread which unlocks and locks again at once (a serving loop stepping its batch) cannot keep
// out one that was already waiting (the desktop app's own reply). One model shared by the app's
// conversations and its server takes turns through one TurnLock: a turn is a whole reply or
// load for the app, one batch step for the server.
//
// lock(), unlock() and try_lock() make it a Lockable for std::lock_guard and std::unique_lock.
// lock_unless() waits like lock() but gives up when `give_up` reads true; whoever sets that
// flag calls wake_waiters() so that a waiter sees it without waiting for its turn.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>

namespace pyramid {

class TurnLock {
public:
    void lock() { lock_unless(nullptr); }
    // True: the caller holds the lock. False: `give_up` was set first (the caller left the queue).
    bool lock_unless(const std::atomic<bool>* give_up);
    bool try_lock();
    void unlock();
    // Wakes every waiter to read its give_up flag again.
    void wake_waiters();

private:
    std::mutex mutex_;
    std::condition_variable turn_;
    std::deque<uint64_t> queue_;  // tickets of the waiters, oldest first
    uint64_t next_ticket_ = 0;
    bool held_ = false;
};

} // namespace pyramid
