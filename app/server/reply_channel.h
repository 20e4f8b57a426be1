#pragma once
// Where one request's reply passes from the serving loop's thread to the HTTP thread that
// answers the client: pieces of text as they become final, then one end. The HTTP side
// cancels it when the client goes away, and the serving loop then cancels the sequence.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace pyramid::server {

// A generated token as a reply's log-probabilities report it (token_logprobs.h).
struct ReplyToken {
    std::string bytes;  // Tokenizer::token_bytes: may be part of a UTF-8 character
    float logprob = 0;
    std::vector<ReplyToken> likeliest;  // highest first; empty in the entries of this list
};

struct ReplyUpdate {
    std::string text;            // final text, possibly empty
    // With a request that asked for log-probabilities: the tokens whose text is now shown (in
    // this update's text or an earlier one's), in order. A token of a stop string, or of the
    // model's end of turn, is not shown and has none.
    std::vector<ReplyToken> tokens;
    bool finished = false;       // the last update of the reply
    std::string finish_reason;   // when finished: "stop", "length", "error", or "cancelled" (the
                                 // channel was cancelled: nobody to answer)
    std::string error;           // finish_reason "error": why
    int prompt_tokens = 0;       // when finished
    int completion_tokens = 0;   // when finished: tokens generated, a stopping one included
};

class ReplyChannel {
public:
    // The serving loop's side.
    void push(ReplyUpdate update);
    bool cancelled() const { return cancelled_.load(); }

    // The HTTP side: every update there is, waiting up to `timeout` for the first one (none
    // when it passes).
    std::vector<ReplyUpdate> take(std::chrono::milliseconds timeout);
    // The client is gone: the sequence stops at the loop's next step.
    void cancel() { cancelled_.store(true); }

private:
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<ReplyUpdate> updates_;
    std::atomic<bool> cancelled_{false};
};

} // namespace pyramid::server
