#pragma once
// The server's engine room: one worker thread owns the batch scheduler
// (generate/batch_scheduler.h) and steps it while any request is open, so that every
// connection's request joins one running batch (continuous batching). HTTP threads submit
// jobs and read their replies from a ReplyChannel; nothing else touches the scheduler.
//
// Each step's tokens become text here (one TextStreamer per sequence), are held back where
// they might begin a stop string, and go to the request's channel. A reply ends at the
// model's end-of-generation tokens (EOS, <|im_end|>, ...: "stop", not shown), at a stop string
// ("stop"), at its max_tokens ("length"), or with an engine error ("error"). A channel the
// client cancelled has its sequence cancelled at the next step, waiting or running.
//
// At most max_batch + max_queue requests are open at once; submit() refuses more (the HTTP
// side answers 429), so the queue and its memory stay bounded.
//
// A model shared with the desktop app's conversations (ServingOptions::turns) is used in turns:
// the worker takes one turn for each step (with its admissions and cancellations) and lets go
// while it has nothing to do, so the app's own replies come in between the steps.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "generate/batch_scheduler.h"
#include "reply_channel.h"
#include "server_metrics.h"
#include "tokenizer/tokenizer.h"
#include "util/turn_lock.h"

namespace pyramid::server {

struct ServingOptions {
    BatchOptions batch;
    int max_queue = 64;  // requests that may wait beyond a full batch
    std::shared_ptr<TurnLock> turns;  // the model's turns when it is shared (chat_engine.h); null: ours alone
};

struct ServingJob {
    std::vector<int32_t> prompt;
    int max_tokens = 1;
    SamplingParams sampling;
    CompressionConfig compression;
    std::vector<std::string> stop;
    std::optional<int> logprobs;  // the likeliest tokens to report with each token's log-probability
    // The reply continues the prompt's text (/v1/completions): its first piece keeps a leading
    // space (text_streamer.h), so prompt + reply reads as the model wrote it.
    bool continues_prompt = false;
    std::optional<JsonConstraint> json;  // constrained JSON (JSON mode, a schema)
};

class ServingLoop {
public:
    // Starts the worker. The backend, tokenizer and metrics must outlive the loop.
    ServingLoop(Backend& backend, const Tokenizer& tokenizer, ServingOptions options, ServerMetrics& metrics);
    // close(), then lets the scheduler's sequences go (in a turn of the model when shared).
    ~ServingLoop();
    ServingLoop(const ServingLoop&) = delete;
    ServingLoop& operator=(const ServingLoop&) = delete;

    // Queues a job; its reply arrives on the channel returned. nullptr when max_batch +
    // max_queue requests are open already: no room is an answer, not an error.
    std::shared_ptr<ReplyChannel> submit(ServingJob job);

    // Stops the worker after the step it is in (or as it waits for a turn): every reply still
    // open ends with finish_reason "error", and so does every job submitted from now on.
    // Returns without waiting for a turn of the model. Idempotent.
    void close();

private:
    struct Submission {
        ServingJob job;
        std::shared_ptr<ReplyChannel> channel;
    };
    struct Open;  // a request in the scheduler (serving_loop.cpp)

    void run();
    void admit(std::vector<Submission> submissions);
    void take_events(const std::vector<BatchEvent>& events);
    void finish(Open& open, const BatchEvent& event);
    void publish_gauges();

    const Tokenizer& tokenizer_;
    ServingOptions options_;
    ServerMetrics& metrics_;
    std::optional<BatchScheduler> scheduler_;  // the worker's alone; reset in a turn by the destructor

    std::mutex mutex_;  // guards what follows it
    std::condition_variable wake_;
    std::vector<Submission> inbox_;
    int open_count_ = 0;  // submitted and not yet finished
    std::atomic<bool> stopping_{false};  // set under mutex_; read without it by a turn's waiter

    std::vector<std::unique_ptr<Open>> open_;  // the worker's alone
    std::thread worker_;                       // last: starts after everything it uses
};

} // namespace pyramid::server
