#pragma once
// One running OpenAI-compatible server: the routes (http_api.h) on a listening socket, the
// serving loop (serving_loop.h) that runs their requests on the model, the metrics, and the
// thread that accepts connections. pyramid-server runs one for its whole life; the desktop app
// runs one while Settings -> Server -> "Serve this model" is on, on the model its conversations
// use (ServingOptions::turns).
//
// The HTTP library stays behind this header (its 9,000 lines are no business of the app's
// translation scanner or compile times).
#include <memory>
#include <string>

#include "api_settings.h"
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

    int port() const;
    const ServerMetrics& metrics() const;

    // Ends every open reply with finish_reason "error" after the step in progress, and stops
    // accepting connections. From any thread; more calls do nothing.
    void stop();
    // Returns once the server stopped accepting connections (after stop(), from another thread).
    void wait();

private:
    struct Running;  // the library's server, the loop, the listener (api_server.cpp)
    std::unique_ptr<Running> running_;
};

} // namespace pyramid::server
