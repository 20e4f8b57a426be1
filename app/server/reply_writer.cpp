#include "reply_writer.h"

#include "api_error.h"

namespace pyramid::server {
namespace {

// Text from the engine is valid UTF-8 (TextStreamer); replace, never throw, should it not be.
std::string dump(const nlohmann::json& value)
{
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace

ReplyWriter::ReplyWriter(ReplyIdentity identity, bool stream, bool include_usage, bool logprobs,
                         std::shared_ptr<ReplyChannel> channel, std::chrono::milliseconds heartbeat)
    : identity_(std::move(identity)), stream_(stream), include_usage_(include_usage), logprobs_(logprobs),
      channel_(std::move(channel)), heartbeat_(heartbeat)
{
}

nlohmann::json ReplyWriter::logprobs(const std::vector<ReplyToken>& tokens)
{
    return logprobs_ ? logprobs_body(identity_.endpoint, tokens, text_offset_) : nlohmann::json(nullptr);
}

ReplyWriter::Progress ReplyWriter::pump(const Write& write)
{
    const auto now = std::chrono::steady_clock::now;
    const auto sent = [&](bool ok) {
        last_write_ = now();
        return ok;
    };
    const auto failed = [&] {
        channel_->cancel();
        return Progress::Failed;
    };
    for (const ReplyUpdate& u : channel_->take(heartbeat_)) {
        if (u.finished)
            return write_end(u, write) == Progress::Done ? Progress::Done : failed();
        if (!stream_) {
            text_ += u.text;
            tokens_.insert(tokens_.end(), u.tokens.begin(), u.tokens.end());
        } else if (!u.text.empty() || !u.tokens.empty()) {
            if (!sent(write(sse_event(dump(chunk_body(identity_, u.text, first_, std::nullopt, logprobs(u.tokens)))))))
                return failed();
            first_ = false;
        }
    }
    // Nothing written for a heartbeat: the queue, a long prompt, or a reply not streamed.
    if (now() - last_write_ >= heartbeat_ && !sent(write(stream_ ? ": keep-alive\n\n" : " ")))
        return failed();
    return Progress::More;
}

ReplyWriter::Progress ReplyWriter::write_end(const ReplyUpdate& end, const Write& write)
{
    if (end.finish_reason == "cancelled")
        return Progress::Failed;
    if (end.finish_reason == "error") {
        const std::string error = dump(error_body(500, "the reply failed: " + end.error));
        return write(stream_ ? sse_event(error) : error) ? Progress::Done : Progress::Failed;
    }
    const Usage usage{end.prompt_tokens, end.completion_tokens};
    if (!stream_) {
        text_ += end.text;
        tokens_.insert(tokens_.end(), end.tokens.begin(), end.tokens.end());
        return write(dump(completion_body(identity_, text_, end.finish_reason, usage, logprobs(tokens_))))
                   ? Progress::Done
                   : Progress::Failed;
    }
    std::string out;
    if (!end.text.empty() || !end.tokens.empty()) {
        out += sse_event(dump(chunk_body(identity_, end.text, first_, std::nullopt, logprobs(end.tokens))));
        first_ = false;
    }
    out += sse_event(dump(chunk_body(identity_, "", first_, end.finish_reason)));
    if (include_usage_)
        out += sse_event(dump(usage_chunk_body(identity_, usage)));
    out += "data: [DONE]\n\n";
    return write(out) ? Progress::Done : Progress::Failed;
}

} // namespace pyramid::server
