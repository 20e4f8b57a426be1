#pragma once
// The threads a CPU backend's kernels run on, made for a desktop whose cores other programs
// use too.
//
// The kernels ran as OpenMP parallel loops. Each loop ends in a barrier that every thread of
// the team must reach, and a decode step is about five loops a layer. When another program
// holds a core, the thread it displaced reaches the barrier a scheduler time slice late
// (milliseconds), at every loop: beside two busy programs on 2 cores, 2 threads decoded
// SmolLM2 at 41 tokens/s where 1 thread decoded at 77 (docs/perf/cpu-llama-cpp.md).
//
// Here each thread has a share of a call's tasks, as a static schedule would give it, and takes
// them one at a time from a counter of its own; a thread whose share is done takes the rest of
// the others' shares the same way. A call waits only for tasks already taken: a helper the
// scheduler has not run takes nothing and holds nothing up (the others do its share). Between
// calls a helper spins for a short while, since a decode step's next call is microseconds
// away, then sleeps until the next call wakes it.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace pyramid {

class WorkerPool {
public:
    // How long an idle thread keeps polling for work before it sleeps: long enough to cover the
    // gap between a decode step's calls, short enough that an idle chat costs no CPU.
    static constexpr std::chrono::microseconds kDefaultSpin{200};

    // `threads` (at least 1) in all: the calling thread of each run() and threads - 1 helpers,
    // started here and stopped by the destructor.
    explicit WorkerPool(int threads, std::chrono::microseconds spin = kDefaultSpin);
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    int threads() const { return static_cast<int>(helpers_.size()) + 1; }

    // Calls task(i, worker) once for every i in [0, tasks) and returns when all have returned.
    // Thread w's share is the w-th of threads() consecutive ranges of i, taken in increasing
    // order, but any thread may take any task, so tasks must not depend on one another.
    // `worker` (in [0, threads())) names the thread a task runs on, for scratch space of its
    // own: no two tasks run on one worker at once; the caller is worker 0. A run() from inside a task, or while another thread's run() has the
    // helpers, runs every task on its own calling thread as worker 0. The first exception a
    // task throws is rethrown here once every taken task has returned (tasks not yet taken
    // are then skipped).
    template <typename Task>
    void run(int64_t tasks, Task&& task)
    {
        using Stored = std::remove_reference_t<Task>;
        run_erased(tasks, [](void* t, int64_t i, int worker) { (*static_cast<Stored*>(t))(i, worker); },
                   const_cast<void*>(static_cast<const void*>(&task)));
    }

private:
    using Call = void (*)(void* task, int64_t index, int worker);

    void run_erased(int64_t tasks, Call call, void* task);
    // Takes tasks of the run numbered `run` until none is left; `worker` runs them.
    void take_tasks(uint32_t run, int worker);
    void help(int worker);

    const std::chrono::microseconds spin_;
    std::atomic<bool> busy_{false};  // a run() has the helpers
    std::atomic<bool> stopping_{false};
    // What a run is, written before its number: read by every thread once a run.
    std::atomic<Call> call_{nullptr};
    std::atomic<void*> task_{nullptr};
    std::atomic<uint32_t> tasks_{0};
    std::atomic<bool> failed_{false};
    // The counters threads write, each on a cache line of its own.
    // Bumped by every run() that uses the helpers; they sleep on it.
    alignas(64) std::atomic<uint32_t> run_{0};
    alignas(64) std::atomic<uint32_t> finished_{0};  // tasks of the current run that have returned
    // A share's next task: (run number << 32) | its index, all ones once the run has ended. A
    // task is taken by advancing it, which fails for a thread still working on an older run.
    struct alignas(64) Share {
        std::atomic<uint64_t> cursor{0};
    };
    std::vector<Share> shares_;  // one a thread
    alignas(64) std::mutex error_mutex_;
    std::exception_ptr error_;
    std::vector<std::thread> helpers_;
};

// task(i, worker) for i in [0, tasks): spread over `pool` when there is one and the work is
// worth it (`parallel`), else on the calling thread as worker 0.
template <typename Task>
void run_tasks(WorkerPool* pool, int64_t tasks, bool parallel, Task&& task)
{
    if (pool && parallel && tasks > 1) {
        pool->run(tasks, std::forward<Task>(task));
        return;
    }
    for (int64_t i = 0; i < tasks; ++i)
        task(i, 0);
}

// The workers `pool` can name: its thread count, or 1 without one.
inline int worker_count(const WorkerPool* pool)
{
    return pool ? pool->threads() : 1;
}

} // namespace pyramid
