#include "serving_loop.h"

#include <algorithm>
#include <deque>

#include <spdlog/spdlog.h>

#include "stop_strings.h"
#include "tokenizer/text_streamer.h"

namespace pyramid::server {

struct ServingLoop::Open {
    int id;
    std::shared_ptr<ReplyChannel> channel;
    TextStreamer streamer;
    StopStrings stops;
    int prompt_tokens;
    int generated = 0;
    // "stop" once the loop ended the reply itself (an end-of-generation token, a stop
    // string): the scheduler then reports the sequence as cancelled.
    std::string ended;
    bool cancel_sent = false;
    // Tokens' log-probabilities wait until their text is shown (past the streamer's incomplete
    // characters and the stop strings' held text): each with the streamer's byte count after it.
    std::deque<std::pair<size_t, ReplyToken>> unshown;
    size_t streamed_bytes = 0;  // text the streamer gave
    size_t shown_bytes = 0;     // of which the client was sent

    Open(int id, std::shared_ptr<ReplyChannel> channel, const Tokenizer& tok, const ServingJob& job)
        : id(id), channel(std::move(channel)), streamer(tok, job.continues_prompt), stops(job.stop),
          prompt_tokens(static_cast<int>(job.prompt.size()))
    {
    }

    // The tokens whose text is all shown, or all that wait (`everything`: the reply is over
    // and nothing was held back).
    std::vector<ReplyToken> take_shown(bool everything)
    {
        std::vector<ReplyToken> shown;
        while (!unshown.empty() && (everything || unshown.front().first <= shown_bytes)) {
            shown.push_back(std::move(unshown.front().second));
            unshown.pop_front();
        }
        return shown;
    }
};

namespace {

ReplyToken reply_token(const Tokenizer& tokenizer, const TokenLogprob& t)
{
    return {tokenizer.token_bytes(t.id), t.logprob, {}};
}

ReplyUpdate failure(std::string why)
{
    ReplyUpdate u;
    u.finished = true;
    u.finish_reason = "error";
    u.error = std::move(why);
    return u;
}

} // namespace

ServingLoop::ServingLoop(Backend& backend, const Tokenizer& tokenizer, ServingOptions options, ServerMetrics& metrics)
    : tokenizer_(tokenizer), options_(options), metrics_(metrics),
      scheduler_(std::in_place, backend, options.batch), worker_([this] { run(); })
{
}

ServingLoop::~ServingLoop()
{
    close();
    // The sequences' caches live on the backend, which the app may be running right now.
    std::unique_lock<TurnLock> turn;
    if (options_.turns)
        turn = std::unique_lock(*options_.turns);
    scheduler_.reset();
}

void ServingLoop::close()
{
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (options_.turns)
        options_.turns->wake_waiters();
    if (worker_.joinable())
        worker_.join();
}

std::shared_ptr<ReplyChannel> ServingLoop::submit(ServingJob job)
{
    auto channel = std::make_shared<ReplyChannel>();
    {
        std::lock_guard lock(mutex_);
        if (stopping_) {
            channel->push(failure("the server is shutting down"));
            return channel;
        }
        if (open_count_ >= options_.batch.max_batch + options_.max_queue)
            return nullptr;
        ++open_count_;
        inbox_.push_back({std::move(job), channel});
    }
    wake_.notify_one();
    return channel;
}

void ServingLoop::run()
{
    for (;;) {
        std::vector<Submission> arrived;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return stopping_ || !inbox_.empty() || !open_.empty(); });
            if (stopping_)
                break;
            arrived.swap(inbox_);
        }
        std::unique_lock<TurnLock> turn;
        if (options_.turns) {
            if (!options_.turns->lock_unless(&stopping_)) {
                std::lock_guard lock(mutex_);
                inbox_.insert(inbox_.begin(), std::make_move_iterator(arrived.begin()),
                              std::make_move_iterator(arrived.end()));
                break;
            }
            turn = std::unique_lock(*options_.turns, std::adopt_lock);
        }
        try {
            admit(std::move(arrived));
            for (const auto& open : open_)
                if (!open->cancel_sent && open->channel->cancelled()) {
                    scheduler_->cancel(open->id);
                    open->cancel_sent = true;
                }
            if (!scheduler_->idle())
                take_events(scheduler_->step());
        } catch (const std::exception& e) {
            // Not the engine's errors (the scheduler ends those sequences itself): a bug. The
            // replies end; their sequences are cancelled so the batch empties.
            spdlog::error("serving loop: {}", e.what());
            for (const auto& open : open_) {
                scheduler_->cancel(open->id);
                metrics_.count_reply("error");
                open->channel->push(failure(std::string("the server failed: ") + e.what()));
            }
            std::lock_guard lock(mutex_);
            open_count_ -= static_cast<int>(open_.size());
            open_.clear();
        }
        publish_gauges();
    }
    std::lock_guard lock(mutex_);
    for (const auto& open : open_)
        open->channel->push(failure("the server is shutting down"));
    for (const Submission& s : inbox_)
        s.channel->push(failure("the server is shutting down"));
}

void ServingLoop::admit(std::vector<Submission> submissions)
{
    for (Submission& s : submissions) {
        BatchRequest request;
        request.prompt = s.job.prompt;
        request.max_new_tokens = s.job.max_tokens;
        request.sampling = s.job.sampling;
        request.compression = s.job.compression;
        request.likeliest_logprobs = s.job.logprobs;
        request.json = s.job.json;
        if (tokenizer_.eos_id() >= 0)
            request.eos_token = tokenizer_.eos_id();
        try {
            const int id = scheduler_->submit(std::move(request));
            metrics_.count_prompt_tokens(static_cast<int>(s.job.prompt.size()));
            open_.push_back(std::make_unique<Open>(id, std::move(s.channel), tokenizer_, s.job));
        } catch (const std::exception& e) {  // refused (pyramid::Error), or no memory for it
            metrics_.count_reply("error");
            s.channel->push(failure(e.what()));
            std::lock_guard lock(mutex_);
            --open_count_;
        }
    }
}

void ServingLoop::take_events(const std::vector<BatchEvent>& events)
{
    // The step has already given finished sequences' memory back. The gauges and the token count
    // say so before any reply ends, so a client that has its reply never reads them stale.
    if (std::any_of(events.begin(), events.end(), [](const BatchEvent& e) { return e.finished; }))
        publish_gauges();
    int generated = 0;
    std::vector<std::pair<Open*, const BatchEvent*>> finished;
    for (const BatchEvent& e : events) {
        const auto it = std::find_if(open_.begin(), open_.end(), [&](const auto& o) { return o->id == e.id; });
        if (it == open_.end())
            continue;
        Open& open = **it;
        if (e.token && open.ended.empty()) {
            ++generated;
            ++open.generated;
            if (tokenizer_.is_end_of_generation(*e.token)) {
                open.ended = "stop";
            } else {
                const std::string streamed = open.streamer.put(*e.token);
                open.streamed_bytes += streamed.size();
                if (e.logprobs) {
                    ReplyToken token = reply_token(tokenizer_, e.logprobs->drawn);
                    for (const TokenLogprob& t : e.logprobs->likeliest)
                        token.likeliest.push_back(reply_token(tokenizer_, t));
                    open.unshown.emplace_back(open.streamed_bytes, std::move(token));
                }
                ReplyUpdate update{open.stops.put(streamed)};
                open.shown_bytes += update.text.size();
                if (open.stops.stopped())
                    open.ended = "stop";
                update.tokens = open.take_shown(false);
                if (!update.text.empty() || !update.tokens.empty())
                    open.channel->push(std::move(update));
            }
            if (!open.ended.empty() && !e.finished) {
                scheduler_->cancel(open.id);
                open.cancel_sent = true;
            }
        }
        if (e.finished)
            finished.emplace_back(&open, &e);
    }
    metrics_.count_generated(generated);
    for (const auto& [open, e] : finished) {
        finish(*open, *e);
        std::erase_if(open_, [open = open](const auto& o) { return o.get() == open; });
    }
}

void ServingLoop::finish(Open& open, const BatchEvent& event)
{
    ReplyUpdate u;
    u.finished = true;
    u.prompt_tokens = open.prompt_tokens;
    u.completion_tokens = open.generated;
    if (!open.stops.stopped()) {
        u.text = open.stops.put(open.streamer.finish());
        if (!open.stops.stopped())
            u.text += open.stops.finish();
    }
    open.shown_bytes += u.text.size();
    u.tokens = open.take_shown(!open.stops.stopped());
    if (!open.ended.empty() || open.stops.stopped()) {
        u.finish_reason = "stop";
    } else {
        switch (event.reason) {
        case FinishReason::EndOfSequence: u.finish_reason = "stop"; break;
        case FinishReason::MaxTokens:
        case FinishReason::ContextFull: u.finish_reason = "length"; break;
        case FinishReason::Cancelled: u.finish_reason = "cancelled"; break;  // the client is gone
        case FinishReason::Error:
            u.finish_reason = "error";
            u.error = event.error;
            break;
        }
    }
    metrics_.count_reply(u.finish_reason);
    open.channel->push(std::move(u));
    std::lock_guard lock(mutex_);
    --open_count_;
}

void ServingLoop::publish_gauges()
{
    metrics_.set_engine({scheduler_->running(), scheduler_->waiting(), scheduler_->kv_bytes(), scheduler_->full_kv_bytes(),
                         scheduler_->layer_lengths()});
}

} // namespace pyramid::server
