#include "api_server.h"

#include <chrono>

#include "util/error.h"

namespace pyramid::server {

ApiServer::ApiServer(Backend& backend, const Tokenizer& tokenizer, ApiSettings settings, ServingOptions serving,
                     const ListenAddress& address)
    : settings_(std::move(settings)), loop_(backend, tokenizer, serving, metrics_)
{
    // A connection holds a thread while its reply streams: one for every request that may be
    // open, and a few for /health, /metrics and the 429 answers beyond them.
    const size_t threads = static_cast<size_t>(serving.batch.max_batch + serving.max_queue) + 4;
    http_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    install_api(http_, settings_, tokenizer, loop_, metrics_);
    // Each streamed event leaves as it is written, not held back by Nagle's algorithm until the
    // client acknowledges the one before.
    http_.set_tcp_nodelay(true);

    port_ = address.port == 0 ? http_.bind_to_any_port(address.host)
                              : (http_.bind_to_port(address.host, address.port) ? address.port : -1);
    if (port_ < 0)
        throw Error("cannot listen on " + address.host + ":" + std::to_string(address.port) +
                    " (the port is in use, or that is not an address of this machine)");
    listener_ = std::thread([this] {
        http_.listen_after_bind();
        std::lock_guard lock(mutex_);
        listening_ = false;
        ended_.notify_all();
    });
    // stop() before the listener runs would find nothing to stop: wait until it accepts.
    while (!http_.is_running()) {
        std::unique_lock lock(mutex_);
        if (!listening_)
            break;
        ended_.wait_for(lock, std::chrono::milliseconds(1));
    }
}

ApiServer::~ApiServer()
{
    stop();
    listener_.join();
}

void ApiServer::stop()
{
    std::call_once(stopped_, [this] {
        // Replies end first, so that no connection's thread waits on one while the server stops.
        loop_.close();
        http_.stop();
    });
}

void ApiServer::wait()
{
    std::unique_lock lock(mutex_);
    ended_.wait(lock, [this] { return !listening_; });
}

} // namespace pyramid::server
