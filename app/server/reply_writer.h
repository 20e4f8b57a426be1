#pragma once
// Writes one reply to its client as the serving loop produces it, in OpenAI's shapes: server-sent
// events for a streamed request (a chunk per piece of text, the finish reason, the usage when
// asked for, then "data: [DONE]"), one JSON object for the others; or in Ollama's
// (ReplyIdentity::shape, ollama_json.h): a line of JSON per piece, the last with the counts and
// times, or one object.
//
// The client's going away is noticed by a write failing, so something is written at least
// every `heartbeat`: while a reply waits (in the queue, or in a long prompt) an SSE comment
// line (": keep-alive"), and all along a non-streamed reply a space before its JSON object
// (JSON allows white space before a value). The second write into a closed connection fails; the
// reply's channel is then cancelled and so is its sequence. A consequence: a non-streamed
// reply's status (200) is sent once the request is queued, and an engine failure in the middle
// of it is reported as an error object in that 200 response (a streamed one gets an error
// event), since the status line went out long before.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "ollama_json.h"
#include "openai_json.h"
#include "reply_channel.h"

namespace pyramid::server {

class ReplyWriter {
public:
    enum class Progress { More, Done, Failed };
    // Sends bytes to the client; false when the connection is gone.
    using Write = std::function<bool(const std::string&)>;

    // `logprobs`: the request asked for log-probabilities (each chunk, or the one object, has
    // them for its tokens; null otherwise).
    ReplyWriter(ReplyIdentity identity, bool stream, bool include_usage, bool logprobs,
                std::shared_ptr<ReplyChannel> channel, std::chrono::milliseconds heartbeat = std::chrono::seconds(1));

    // Writes what the loop produced since the last call, waiting up to a heartbeat for it.
    // Failed: the client is gone (or the reply was cancelled): the channel is cancelled.
    Progress pump(const Write& write);

private:
    Progress write_end(const ReplyUpdate& end, const Write& write);
    // A streamed piece of text in the reply's shape.
    std::string piece(const std::string& text, const std::vector<ReplyToken>& tokens);
    ReplyTimes times() const;
    // A choice's "logprobs" for these tokens: null unless asked for.
    nlohmann::json logprobs(const std::vector<ReplyToken>& tokens);

    ReplyIdentity identity_;
    bool stream_, include_usage_, logprobs_;
    std::shared_ptr<ReplyChannel> channel_;
    std::chrono::milliseconds heartbeat_;
    bool first_ = true;
    std::string text_;  // a non-streamed reply, as it grows
    std::vector<ReplyToken> tokens_;  // and its tokens' log-probabilities
    size_t text_offset_ = 0;          // characters of the reply before the next token (text shape)
    std::chrono::steady_clock::time_point last_write_ = std::chrono::steady_clock::now();
    const std::chrono::steady_clock::time_point started_ = last_write_;
    std::optional<std::chrono::steady_clock::time_point> first_text_;
};

} // namespace pyramid::server
