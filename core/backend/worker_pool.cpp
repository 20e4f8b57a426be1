#include "backend/worker_pool.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace pyramid {
namespace {

// One poll of a spin loop: tells the core this thread is waiting (x86's pause frees the
// sibling hardware thread's share of the core).
inline void relax()
{
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

// Polls until `changed()` holds or `spin` has passed; says whether it holds.
template <typename Changed>
bool spin_until(std::chrono::microseconds spin, Changed&& changed)
{
    const auto deadline = std::chrono::steady_clock::now() + spin;
    for (;;) {
        for (int i = 0; i < 32; ++i) {
            if (changed())
                return true;
            relax();
        }
        if (std::chrono::steady_clock::now() >= deadline)
            return changed();
    }
}

constexpr uint64_t kIndexMask = 0xffffffffu;

// The first task of worker w's share: shares differ by at most one task.
uint32_t share_begin(uint32_t tasks, int w, int threads)
{
    return static_cast<uint32_t>(static_cast<uint64_t>(tasks) * static_cast<uint64_t>(w) / static_cast<uint64_t>(threads));
}

} // namespace

WorkerPool::WorkerPool(int threads, std::chrono::microseconds spin) : spin_(spin)
{
    if (threads < 1)
        throw std::invalid_argument("a worker pool needs at least 1 thread, not " + std::to_string(threads));
    shares_ = std::vector<Share>(static_cast<size_t>(threads));
    helpers_.reserve(static_cast<size_t>(threads - 1));
    for (int worker = 1; worker < threads; ++worker)
        helpers_.emplace_back([this, worker] { help(worker); });
}

WorkerPool::~WorkerPool()
{
    stopping_.store(true);
    run_.fetch_add(1);
    run_.notify_all();
    for (std::thread& helper : helpers_)
        helper.join();
}

void WorkerPool::run_erased(int64_t tasks, Call call, void* task)
{
    if (tasks <= 0)
        return;
    bool expected = false;
    if (helpers_.empty() || tasks == 1 || !busy_.compare_exchange_strong(expected, true)) {
        for (int64_t i = 0; i < tasks; ++i)
            call(task, i, 0);
        return;
    }
    if (tasks >= static_cast<int64_t>(kIndexMask)) {
        busy_.store(false);
        throw std::length_error("a worker pool run takes fewer than 2^32 - 1 tasks, not " + std::to_string(tasks));
    }
    // Published before the run number: a helper that sees the number sees the run.
    const uint32_t run = run_.load() + 1;
    call_.store(call);
    task_.store(task);
    tasks_.store(static_cast<uint32_t>(tasks));
    finished_.store(0);
    failed_.store(false);
    error_ = nullptr;
    for (int w = 0; w < threads(); ++w)
        shares_[static_cast<size_t>(w)].cursor.store(static_cast<uint64_t>(run) << 32 |
                                                     share_begin(static_cast<uint32_t>(tasks), w, threads()));
    run_.store(run);
    run_.notify_all();

    take_tasks(run, 0);
    const auto all_finished = [&] { return finished_.load() == tasks; };
    while (!spin_until(spin_, all_finished)) {
        const uint32_t seen = finished_.load();
        if (seen != tasks)
            finished_.wait(seen);
    }
    // Closed before the next run publishes its task count: a thread still in this run reads
    // that count before its cursor and must not find this run's cursors open under it.
    for (Share& share : shares_)
        share.cursor.store(static_cast<uint64_t>(run) << 32 | kIndexMask);
    busy_.store(false);
    if (failed_.load())
        std::rethrow_exception(error_);
}

void WorkerPool::take_tasks(uint32_t run, int worker)
{
    // Read before taking: a task taken under this run number belongs to this call and task.
    const Call call = call_.load();
    void* const task = task_.load();
    const uint32_t tasks = tasks_.load();
    const int threads = this->threads();
    uint32_t done = 0;
    // The worker's own share first, then the others' in turn.
    for (int k = 0; k < threads; ++k) {
        const int owner = (worker + k) % threads;
        const uint32_t end = share_begin(tasks, owner + 1, threads);
        std::atomic<uint64_t>& cursor = shares_[static_cast<size_t>(owner)].cursor;
        uint64_t next = cursor.load();
        for (;;) {
            if ((next >> 32) != run || static_cast<uint32_t>(next & kIndexMask) >= end)
                break;
            if (!cursor.compare_exchange_weak(next, next + 1))
                continue;  // `next` now holds the counter as another thread left it
            if (!failed_.load(std::memory_order_relaxed)) {
                try {
                    call(task, static_cast<int64_t>(next & kIndexMask), worker);
                } catch (...) {
                    const std::lock_guard lock(error_mutex_);
                    if (!failed_.load()) {
                        error_ = std::current_exception();
                        failed_.store(true);
                    }
                }
            }
            ++done;
            ++next;
        }
    }
    // Counted once a thread, not once a task: the counter is every thread's.
    if (done != 0 && finished_.fetch_add(done) + done == tasks)
        finished_.notify_one();  // the caller may be asleep on it
}

void WorkerPool::help(int worker)
{
    uint32_t seen = 0;
    for (;;) {
        if (!spin_until(spin_, [&] { return run_.load() != seen; }))
            run_.wait(seen);
        const uint32_t run = run_.load();
        if (run == seen)
            continue;
        if (stopping_.load())
            return;
        seen = run;
        take_tasks(run, worker);
    }
}

} // namespace pyramid
