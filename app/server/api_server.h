#pragma once
// One running OpenAI-compatible server: the routes (http_api.h) on a listening socket, the
// serving loop (serving_loop.h) that runs their requests on the model, the metrics, and the
// thread that accepts connections. pyramid-server runs one for its whole life; the desktop app
// runs one while Settings -> Server -> "Serve this model" is on, on the model its conversations
// use (ServingOptions::turns).
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <httplib.h>

#include "http_api.h"
#include "server_metrics.h"
#include "serving_loop.h"

namespace pyramid::server {

struct ListenAddress {
    std::string host = "127.0.0.1";
    int port = 8080;  // 0: any free port (port() says which)
};

class ApiServer {
public:
    // Binds, starts the serving loop and accepts connections before it returns. Throws
    // pyramid::Error naming the address when it cannot listen there. The backend and tokenizer
    // must outlive the server.
    ApiServer(Backend& backend, const Tokenizer& tokenizer, ApiSettings settings, ServingOptions serving,
              const ListenAddress& address);
    // stop(), then waits for the connections' threads and lets the serving loop go, which takes a
    // turn of a shared model (so it may wait for the app's reply in progress).
    ~ApiServer();
    ApiServer(const ApiServer&) = delete;
    ApiServer& operator=(const ApiServer&) = delete;

    int port() const { return port_; }
    const ServerMetrics& metrics() const { return metrics_; }

    // Ends every open reply with finish_reason "error" after the step in progress, and stops
    // accepting connections. From any thread; more calls do nothing.
    void stop();
    // Returns once the server stopped accepting connections (after stop(), from another thread).
    void wait();

private:
    const ApiSettings settings_;
    ServerMetrics metrics_;
    ServingLoop loop_;  // before http_: its routes submit to it
    httplib::Server http_;
    int port_ = 0;
    std::once_flag stopped_;
    std::mutex mutex_;
    std::condition_variable ended_;
    bool listening_ = true;  // guarded by mutex_
    std::thread listener_;   // last: runs once everything above exists
};

} // namespace pyramid::server
