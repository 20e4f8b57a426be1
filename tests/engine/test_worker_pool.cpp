// The CPU backend's threads (backend/worker_pool.h): every task runs once, on a worker of its
// own, helpers share the work, a call from a task or beside another call runs on its own
// thread, a task's exception reaches the caller, and a helper the system holds back (here:
// inside a signal handler) holds up no call.
#include <QtTest>

#include <atomic>
#include <chrono>
#include <csignal>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <sys/syscall.h>
#include <unistd.h>

#include "backend/worker_pool.h"

using namespace pyramid;
using namespace std::chrono_literals;

namespace {

// Waits up to `limit` for `done`; says whether it came.
template <typename Done>
bool wait_for(Done&& done, std::chrono::milliseconds limit = 20s)
{
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline)
            return false;
        std::this_thread::sleep_for(1ms);
    }
    return true;
}

std::atomic<int> threads_held{0};
std::atomic<bool> release_held{false};

void hold_thread(int)
{
    threads_held.fetch_add(1);
    while (!release_held.load()) {
        const timespec pause{0, 1'000'000};
        nanosleep(&pause, nullptr);  // async-signal-safe
    }
}

} // namespace

class WorkerPoolTest : public QObject {
    Q_OBJECT
private slots:
    void every_task_runs_once_on_a_worker_of_its_own()
    {
        for (int threads : {1, 2, 3, 4})
            for (int64_t tasks : {0, 1, 2, 3, 7, 100, 5000}) {
                WorkerPool pool(threads);
                QCOMPARE(pool.threads(), threads);
                std::vector<std::atomic<int>> runs(static_cast<size_t>(tasks));
                std::vector<std::atomic<int>> busy(static_cast<size_t>(threads));
                std::atomic<int> overlaps{0}, bad_workers{0};
                pool.run(tasks, [&](int64_t i, int worker) {
                    if (worker < 0 || worker >= threads) {
                        bad_workers.fetch_add(1);
                        return;
                    }
                    if (busy[static_cast<size_t>(worker)].fetch_add(1) != 0)
                        overlaps.fetch_add(1);
                    runs[static_cast<size_t>(i)].fetch_add(1);
                    busy[static_cast<size_t>(worker)].fetch_sub(1);
                });
                QCOMPARE(bad_workers.load(), 0);
                QCOMPARE(overlaps.load(), 0);
                for (const auto& r : runs)
                    QCOMPARE(r.load(), 1);
            }
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, WorkerPool(0));
    }

    // Many short calls in a row, as a decode step makes them: no task of one call is lost to,
    // or run again by, a thread still finishing the call before.
    void calls_in_quick_succession_keep_their_tasks_apart()
    {
        WorkerPool pool(3, 0us);  // helpers that sleep at once: every call wakes them again
        std::vector<int64_t> sums(20000);
        for (size_t call = 0; call < sums.size(); ++call) {
            std::atomic<int64_t> sum{0};
            const int64_t tasks = 1 + static_cast<int64_t>(call % 9);
            pool.run(tasks, [&](int64_t i, int) { sum.fetch_add(static_cast<int64_t>(call) * 100 + i); });
            sums[call] = sum.load() - static_cast<int64_t>(call) * 100 * tasks - tasks * (tasks - 1) / 2;
        }
        QCOMPARE(std::count(sums.begin(), sums.end(), 0), static_cast<ptrdiff_t>(sums.size()));
    }

    // Two tasks that can only finish together: the caller's waits for the other, so the
    // other must run on a helper.
    void helpers_take_a_share()
    {
        WorkerPool pool(2);
        std::atomic<int> started{0};
        std::atomic<bool> together{true};
        pool.run(2, [&](int64_t, int) {
            started.fetch_add(1);
            if (!wait_for([&] { return started.load() == 2; }))
                together.store(false);
        });
        QVERIFY(together.load());
    }

    void a_call_from_a_task_or_beside_another_runs_on_its_thread()
    {
        WorkerPool pool(2);
        std::atomic<int> inner_tasks{0}, inner_elsewhere{0};
        pool.run(4, [&](int64_t, int) {
            const auto here = std::this_thread::get_id();
            pool.run(5, [&](int64_t, int worker) {
                inner_tasks.fetch_add(1);
                if (std::this_thread::get_id() != here || worker != 0)
                    inner_elsewhere.fetch_add(1);
            });
        });
        QCOMPARE(inner_tasks.load(), 20);
        QCOMPARE(inner_elsewhere.load(), 0);

        // Two threads calling at once: both calls complete with every task run once.
        std::vector<std::atomic<int>> a(300), b(300);
        std::thread other([&] {
            for (int r = 0; r < 200; ++r)
                pool.run(static_cast<int64_t>(a.size()), [&](int64_t i, int) { a[static_cast<size_t>(i)].fetch_add(1); });
        });
        for (int r = 0; r < 200; ++r)
            pool.run(static_cast<int64_t>(b.size()), [&](int64_t i, int) { b[static_cast<size_t>(i)].fetch_add(1); });
        other.join();
        for (size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(a[i].load(), 200);
            QCOMPARE(b[i].load(), 200);
        }
    }

    void a_task_exception_reaches_the_caller()
    {
        WorkerPool pool(3);
        std::atomic<int> ran{0};
        try {
            pool.run(1000, [&](int64_t i, int) {
                ran.fetch_add(1);
                if (i == 400)
                    throw std::runtime_error("task 400 failed");
            });
            QFAIL("the exception was lost");
        } catch (const std::runtime_error& e) {
            QCOMPARE(std::string(e.what()), std::string("task 400 failed"));
        }
        QVERIFY(ran.load() >= 1 && ran.load() <= 1000);
        std::atomic<int> after{0};  // the pool still works
        pool.run(1000, [&](int64_t, int) { after.fetch_add(1); });
        QCOMPARE(after.load(), 1000);
    }

    // The reason for the pool: a helper that the system does not run (another program holds
    // its core) must not hold up a call, as a barrier that waits for every thread would. The
    // helper is held inside a signal handler, where it takes no task, while the call runs.
    void a_held_back_helper_holds_up_no_call()
    {
        WorkerPool pool(2);
        // The helper's thread id, from the task it must take (as in helpers_take_a_share).
        std::atomic<int> started{0};
        std::atomic<pid_t> helper{0};
        pool.run(2, [&](int64_t, int worker) {
            if (worker != 0)
                helper.store(static_cast<pid_t>(syscall(SYS_gettid)));
            started.fetch_add(1);
            wait_for([&] { return started.load() == 2; });
        });
        QVERIFY(helper.load() != 0);
        struct sigaction action {};
        action.sa_handler = hold_thread;
        sigemptyset(&action.sa_mask);
        struct sigaction previous {};
        QCOMPARE(sigaction(SIGUSR1, &action, &previous), 0);
        QCOMPARE(syscall(SYS_tgkill, getpid(), helper.load(), SIGUSR1), 0L);
        const bool held = wait_for([] { return threads_held.load() == 1; });
        if (!held)
            release_held.store(true);
        QVERIFY(held);

        std::atomic<bool> finished{false};
        std::vector<int> worker_of(1000, -1);
        std::thread caller([&] {
            pool.run(static_cast<int64_t>(worker_of.size()),
                     [&](int64_t i, int worker) { worker_of[static_cast<size_t>(i)] = worker; });
            finished.store(true);
        });
        const bool in_time = wait_for([&] { return finished.load(); });
        release_held.store(true);
        caller.join();
        sigaction(SIGUSR1, &previous, nullptr);
        QVERIFY2(in_time, "the call waited for the held helper");
        QCOMPARE(std::count(worker_of.begin(), worker_of.end(), 0), static_cast<ptrdiff_t>(worker_of.size()));
    }
};

QTEST_APPLESS_MAIN(WorkerPoolTest)
#include "test_worker_pool.moc"
