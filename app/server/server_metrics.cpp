#include "server_metrics.h"

#include <array>
#include <string_view>

#include <fmt/format.h>

namespace pyramid::server {
namespace {

// Only these paths get their own label: a client choosing the path must not grow the table.
constexpr std::array<std::string_view, 12> kEndpoints{
    "/v1/chat/completions", "/v1/completions", "/v1/models", "/tokenize", "/detokenize", "/api/chat",
    "/api/generate", "/api/tags", "/api/show", "/api/version", "/health", "/metrics"};
constexpr std::string_view kOneModel = "/v1/models/";  // + a model's id: one label for them all

void family(std::string& out, const char* name, const char* type, const char* help)
{
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

} // namespace

void ServerMetrics::count_request(const std::string& endpoint, int status)
{
    bool known = false;
    for (std::string_view e : kEndpoints)
        known = known || e == endpoint;
    const bool one_model = endpoint.size() > kOneModel.size() && endpoint.starts_with(kOneModel);
    std::lock_guard lock(mutex_);
    ++requests_[{known ? endpoint : one_model ? "/v1/models/{id}" : "other", status}];
}

void ServerMetrics::count_prompt_tokens(int tokens)
{
    std::lock_guard lock(mutex_);
    prompt_tokens_ += tokens;
}

void ServerMetrics::count_generated(int tokens, Clock::time_point now)
{
    std::lock_guard lock(mutex_);
    completion_tokens_ += tokens;
    recent_.emplace_back(now, tokens);
    while (!recent_.empty() && recent_.front().first < now - kRateWindow)
        recent_.pop_front();
}

void ServerMetrics::count_reply(const std::string& finish_reason)
{
    std::lock_guard lock(mutex_);
    ++replies_[finish_reason];
}

void ServerMetrics::set_engine(EngineGauges gauges)
{
    std::lock_guard lock(mutex_);
    engine_ = std::move(gauges);
}

std::string ServerMetrics::prometheus_text(Clock::time_point now) const
{
    std::lock_guard lock(mutex_);
    while (!recent_.empty() && recent_.front().first < now - kRateWindow)
        recent_.pop_front();
    long long recent_tokens = 0;
    for (const auto& [when, tokens] : recent_)
        recent_tokens += tokens;

    std::string out;
    family(out, "pyramid_requests_total", "counter", "HTTP requests answered, by endpoint and status.");
    for (const auto& [key, count] : requests_)
        out += fmt::format("pyramid_requests_total{{endpoint=\"{}\",status=\"{}\"}} {}\n", key.first, key.second, count);
    family(out, "pyramid_prompt_tokens_total", "counter", "Prompt tokens of the requests admitted.");
    out += fmt::format("pyramid_prompt_tokens_total {}\n", prompt_tokens_);
    family(out, "pyramid_completion_tokens_total", "counter", "Tokens generated.");
    out += fmt::format("pyramid_completion_tokens_total {}\n", completion_tokens_);
    family(out, "pyramid_replies_total", "counter", "Replies ended, by finish reason (cancelled: the client went away).");
    for (const auto& [reason, count] : replies_)
        out += fmt::format("pyramid_replies_total{{finish_reason=\"{}\"}} {}\n", reason, count);
    family(out, "pyramid_generation_tokens_per_second", "gauge", "Tokens generated over the last 10 seconds, per second.");
    out += fmt::format("pyramid_generation_tokens_per_second {}\n",
                       static_cast<double>(recent_tokens) / static_cast<double>(kRateWindow.count()));
    family(out, "pyramid_queue_length", "gauge", "Requests waiting for a place in the running batch.");
    out += fmt::format("pyramid_queue_length {}\n", engine_.waiting);
    family(out, "pyramid_running_sequences", "gauge", "Sequences in the running batch.");
    out += fmt::format("pyramid_running_sequences {}\n", engine_.running);
    family(out, "pyramid_kv_cache_bytes", "gauge", "KV-cache bytes the running sequences hold.");
    out += fmt::format("pyramid_kv_cache_bytes {}\n", engine_.kv_bytes);
    family(out, "pyramid_kv_cache_full_bytes", "gauge", "KV-cache bytes full caches would hold for the running sequences.");
    out += fmt::format("pyramid_kv_cache_full_bytes {}\n", engine_.full_kv_bytes);
    family(out, "pyramid_kv_cache_layer_entries", "gauge", "KV-cache entries the running sequences hold, per layer.");
    for (size_t l = 0; l < engine_.layer_entries.size(); ++l)
        out += fmt::format("pyramid_kv_cache_layer_entries{{layer=\"{}\"}} {}\n", l, engine_.layer_entries[l]);
    return out;
}

EngineGauges ServerMetrics::engine() const
{
    std::lock_guard lock(mutex_);
    return engine_;
}

long long ServerMetrics::replies_total() const
{
    std::lock_guard lock(mutex_);
    long long total = 0;
    for (const auto& [reason, count] : replies_)
        total += count;
    return total;
}

} // namespace pyramid::server
