// Turns on a model shared by the desktop app's conversations and its server (util/turn_lock.h,
// ServingLoop with ServingOptions::turns): waiters go in the order they came, a waiter gives up
// when told, the serving loop generates nothing while the app holds a turn and goes on once it
// lets go, and closing the loop while it waits for a turn returns at once and ends the reply.
#include <QtTest>

#include <chrono>
#include <future>
#include <thread>

#include "model/model.h"
#include "serving_loop.h"
#include "shared_data.h"
#include "util/turn_lock.h"

using namespace pyramid;
using namespace pyramid::server;
using namespace std::chrono_literals;

namespace {

// Every update of a reply until it ends, waiting at most `limit` in all.
std::vector<ReplyUpdate> all_updates(ReplyChannel& channel, std::chrono::milliseconds limit)
{
    std::vector<ReplyUpdate> out;
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end && (out.empty() || !out.back().finished)) {
        for (ReplyUpdate& u : channel.take(50ms))
            out.push_back(std::move(u));
    }
    return out;
}

// The tokens of a prompt as a request's would be: BOS first where the model asks for it.
std::vector<int32_t> prompt_tokens(const Tokenizer& tok, const std::string& text)
{
    std::vector<int32_t> ids = tok.encode(text);
    if (tok.add_bos())
        ids.insert(ids.begin(), tok.bos_id());
    return ids;
}

} // namespace

class ServingTurnsTest : public QObject {
    Q_OBJECT

private slots:
    void waitersGoInTheOrderTheyCame()
    {
        TurnLock turns;
        turns.lock();
        std::mutex order_mutex;
        std::vector<int> order;
        std::vector<std::thread> waiters;
        for (int i = 0; i < 4; ++i) {
            waiters.emplace_back([&, i] {
                std::lock_guard turn(turns);
                std::lock_guard lock(order_mutex);
                order.push_back(i);
            });
            // Each waiter queues before the next starts.
            std::this_thread::sleep_for(30ms);
        }
        QVERIFY(!turns.try_lock());
        turns.unlock();
        for (std::thread& t : waiters)
            t.join();
        QCOMPARE(order, (std::vector<int>{0, 1, 2, 3}));
        QVERIFY(turns.try_lock());  // nobody holds it or waits any more
        turns.unlock();
    }

    void aWaiterGivesUpWhenTold()
    {
        TurnLock turns;
        turns.lock();
        std::atomic<bool> give_up{false};
        auto waiter = std::async(std::launch::async, [&] { return turns.lock_unless(&give_up); });
        QCOMPARE(waiter.wait_for(100ms), std::future_status::timeout);
        give_up = true;
        turns.wake_waiters();
        QCOMPARE(waiter.wait_for(2s), std::future_status::ready);
        QVERIFY(!waiter.get());
        // It left the queue: the lock is free for the next one once let go.
        turns.unlock();
        QVERIFY(turns.try_lock());
        turns.unlock();
    }

    void theLoopStepsOnlyInItsTurns()
    {
        PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
        std::shared_ptr<Model> model = Model::open(path.string());
        auto turns = std::make_shared<TurnLock>();
        ServerMetrics metrics;
        ServingOptions options;
        options.turns = turns;
        ServingLoop loop(model->backend(), model->tokenizer(), options, metrics);

        ServingJob job;
        job.prompt = prompt_tokens(model->tokenizer(), "Once upon a time");
        job.max_tokens = 6;
        job.sampling.temperature = 0;
        std::vector<ReplyUpdate> alone;
        {
            std::shared_ptr<ReplyChannel> channel = loop.submit(job);
            QVERIFY(channel);
            alone = all_updates(*channel, 30s);
            QVERIFY(!alone.empty() && alone.back().finished);
            QCOMPARE(alone.back().finish_reason, std::string("length"));
        }

        // The app's reply holds the model: the request waits, then comes out the same.
        turns->lock();
        std::shared_ptr<ReplyChannel> channel = loop.submit(job);
        QVERIFY(channel);
        QVERIFY(channel->take(300ms).empty());
        QCOMPARE(metrics.engine().running, 0);
        turns->unlock();
        const std::vector<ReplyUpdate> after = all_updates(*channel, 30s);
        QVERIFY(!after.empty() && after.back().finished);
        std::string text_alone, text_after;
        for (const ReplyUpdate& u : alone)
            text_alone += u.text;
        for (const ReplyUpdate& u : after)
            text_after += u.text;
        QCOMPARE(text_after, text_alone);
        QCOMPARE(after.back().completion_tokens, 6);
    }

    void closingWhileWaitingForATurnReturnsAtOnce()
    {
        PYRAMID_REQUIRE_SHARED(path, "models/stories260K.gguf");
        std::shared_ptr<Model> model = Model::open(path.string());
        auto turns = std::make_shared<TurnLock>();
        ServerMetrics metrics;
        ServingOptions options;
        options.turns = turns;
        auto loop = std::make_unique<ServingLoop>(model->backend(), model->tokenizer(), options, metrics);

        ServingJob job;
        job.prompt = prompt_tokens(model->tokenizer(), "Once upon a time");
        job.max_tokens = 4;
        turns->lock();
        std::shared_ptr<ReplyChannel> channel = loop->submit(job);
        QVERIFY(channel);
        std::this_thread::sleep_for(100ms);  // the worker now waits for its turn

        const auto started = std::chrono::steady_clock::now();
        loop->close();
        QVERIFY(std::chrono::steady_clock::now() - started < 2s);
        const std::vector<ReplyUpdate> updates = all_updates(*channel, 2s);
        QVERIFY(!updates.empty() && updates.back().finished);
        QCOMPARE(updates.back().finish_reason, std::string("error"));
        // Submitted after the close: refused with an ended reply, not left open.
        std::shared_ptr<ReplyChannel> late = loop->submit(job);
        QVERIFY(late);
        QCOMPARE(all_updates(*late, 1s).back().finish_reason, std::string("error"));

        // The loop lets its sequences go in a turn: not before the app lets go.
        auto destroyed = std::async(std::launch::async, [&] { loop.reset(); });
        QCOMPARE(destroyed.wait_for(200ms), std::future_status::timeout);
        turns->unlock();
        QCOMPARE(destroyed.wait_for(10s), std::future_status::ready);
    }
};

QTEST_GUILESS_MAIN(ServingTurnsTest)
#include "test_serving_turns.moc"
