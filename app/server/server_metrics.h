#pragma once
// What GET /metrics reports, in Prometheus' text exposition format (version 0.0.4):
//
//   pyramid_requests_total{endpoint,status}   HTTP requests answered (counter); endpoints
//                                             other than the server's own count as "other"
//   pyramid_prompt_tokens_total               prompt tokens of the requests admitted (counter)
//   pyramid_completion_tokens_total           tokens generated (counter)
//   pyramid_replies_total{finish_reason}      replies ended: stop, length, error, or cancelled
//                                             (the client went away) (counter)
//   pyramid_generation_tokens_per_second      tokens generated over the last 10 seconds / 10
//   pyramid_queue_length                      requests waiting for a place in the batch
//   pyramid_running_sequences                 sequences in the running batch
//   pyramid_kv_cache_bytes                    KV bytes the running sequences hold
//   pyramid_kv_cache_full_bytes               what full caches would hold for them
//   pyramid_kv_cache_layer_entries{layer}     entries the running sequences hold per layer
//
// Thread-safe: the serving loop sets the engine's figures after each step, HTTP threads count
// requests, and any thread renders.
#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace pyramid::server {

// The batch as one step left it.
struct EngineGauges {
    int running = 0;
    int waiting = 0;
    size_t kv_bytes = 0;
    size_t full_kv_bytes = 0;
    std::vector<int> layer_entries;
};

class ServerMetrics {
public:
    using Clock = std::chrono::steady_clock;

    // `endpoint`: the request's path, counted under "other" unless it is one of the server's.
    void count_request(const std::string& endpoint, int status);
    void count_prompt_tokens(int tokens);
    // Tokens one step generated, at `now`.
    void count_generated(int tokens, Clock::time_point now = Clock::now());
    // A reply ended, for `finish_reason` ("stop", "length", "error", "cancelled").
    void count_reply(const std::string& finish_reason);
    void set_engine(EngineGauges gauges);

    std::string prometheus_text(Clock::time_point now = Clock::now()) const;

    // The figures beside the text, for the desktop app's live panel.
    EngineGauges engine() const;
    long long replies_total() const;  // replies ended, whatever the reason

private:
    static constexpr std::chrono::seconds kRateWindow{10};

    mutable std::mutex mutex_;
    std::map<std::pair<std::string, int>, long long> requests_;
    long long prompt_tokens_ = 0;
    long long completion_tokens_ = 0;
    std::map<std::string, long long> replies_;
    // Tokens generated per step within the rate window, oldest first.
    mutable std::deque<std::pair<Clock::time_point, int>> recent_;
    EngineGauges engine_;
};

} // namespace pyramid::server
