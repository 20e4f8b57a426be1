#include "api_server.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <httplib.h>

#include "http_api.h"
#include "util/error.h"

namespace pyramid::server {

struct ApiServer::Running {
    const ApiSettings settings;
    ServerMetrics metrics;
    ServingLoop loop;  // before http: its routes submit to it
    httplib::Server http;
    int port = 0;
    std::once_flag stopped;
    std::mutex mutex;
    std::condition_variable ended;
    bool listening = true;  // guarded by mutex
    std::thread listener;   // last: runs once everything above exists

    Running(Backend& backend, const Tokenizer& tokenizer, ApiSettings settings_in, const ServingOptions& serving)
        : settings(std::move(settings_in)), loop(backend, tokenizer, serving, metrics)
    {
    }
};

ApiServer::ApiServer(Backend& backend, const Tokenizer& tokenizer, ApiSettings settings, ServingOptions serving,
                     const ListenAddress& address)
    : running_(std::make_unique<Running>(backend, tokenizer, std::move(settings), serving))
{
    Running& r = *running_;
    // A connection holds a thread while its reply streams: one for every request that may be
    // open, and a few for /health, /metrics and the 429 answers beyond them.
    const size_t threads = static_cast<size_t>(serving.batch.max_batch + serving.max_queue) + 4;
    r.http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    install_api(r.http, r.settings, tokenizer, r.loop, r.metrics);
    // Each streamed event leaves as it is written, not held back by Nagle's algorithm until the
    // client acknowledges the one before.
    r.http.set_tcp_nodelay(true);

    r.port = address.port == 0 ? r.http.bind_to_any_port(address.host)
                               : (r.http.bind_to_port(address.host, address.port) ? address.port : -1);
    if (r.port < 0)
        throw Error("cannot listen on " + address.host + ":" + std::to_string(address.port) +
                    " (the port is in use, or that is not an address of this machine)");
    r.listener = std::thread([&r] {
        r.http.listen_after_bind();
        std::lock_guard lock(r.mutex);
        r.listening = false;
        r.ended.notify_all();
    });
    // stop() before the listener runs would find nothing to stop: wait until it accepts.
    while (!r.http.is_running()) {
        std::unique_lock lock(r.mutex);
        if (!r.listening)
            break;
        r.ended.wait_for(lock, std::chrono::milliseconds(1));
    }
}

ApiServer::~ApiServer()
{
    stop();
    running_->listener.join();
}

int ApiServer::port() const { return running_->port; }

const ServerMetrics& ApiServer::metrics() const { return running_->metrics; }

void ApiServer::stop()
{
    Running& r = *running_;
    std::call_once(r.stopped, [&r] {
        // Replies end first, so that no connection's thread waits on one while the server stops.
        r.loop.close();
        r.http.stop();
    });
}

void ApiServer::wait()
{
    Running& r = *running_;
    std::unique_lock lock(r.mutex);
    r.ended.wait(lock, [&r] { return !r.listening; });
}

} // namespace pyramid::server
