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
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "generate/batch_scheduler.h"
#include "reply_channel.h"
#include "server_metrics.h"
#include "tokenizer/tokenizer.h"

namespace pyramid::server {

struct ServingOptions {
    BatchOptions batch;
    int max_queue = 64;  // requests that may wait beyond a full batch
};

struct ServingJob {
    std::vector<int32_t> prompt;
    int max_tokens = 1;
    SamplingParams sampling;
    CompressionConfig compression;
    std::vector<std::string> stop;
};

class ServingLoop {
public:
    // Starts the worker. The backend, tokenizer and metrics must outlive the loop.
    ServingLoop(Backend& backend, const Tokenizer& tokenizer, ServingOptions options, ServerMetrics& metrics);
    // Stops the worker; replies still open end with finish_reason "error".
    ~ServingLoop();
    ServingLoop(const ServingLoop&) = delete;
    ServingLoop& operator=(const ServingLoop&) = delete;

    // Queues a job; its reply arrives on the channel returned. nullptr when max_batch +
    // max_queue requests are open already: no room is an answer, not an error.
    std::shared_ptr<ReplyChannel> submit(ServingJob job);

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
    BatchScheduler scheduler_;  // the worker's alone

    std::mutex mutex_;  // guards what follows it
    std::condition_variable wake_;
    std::vector<Submission> inbox_;
    int open_count_ = 0;  // submitted and not yet finished
    bool stopping_ = false;

    std::vector<std::unique_ptr<Open>> open_;  // the worker's alone
    std::thread worker_;                       // last: starts after everything it uses
};

} // namespace pyramid::server
