#include "reply_writer.h"

#include "api_error.h"
#include "ollama_json.h"

#include <utility>

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
        if (!first_text_ && !u.text.empty())
            first_text_ = now();
        if (u.finished)
            return write_end(u, write) == Progress::Done ? Progress::Done : failed();
        if (!stream_) {
            text_ += u.text;
            tokens_.insert(tokens_.end(), u.tokens.begin(), u.tokens.end());
        } else if (!u.text.empty() || !u.tokens.empty()) {
            if (!sent(write(piece(u.text, u.tokens))))
                return failed();
        }
    }
    // Nothing written for a heartbeat: the queue, a long prompt, or a reply not streamed. Ollama's
    // lines have no comments: a space, which the next line's JSON begins with.
    if (now() - last_write_ >= heartbeat_ &&
        !sent(write(stream_ && identity_.shape == ReplyShape::OpenAI ? ": keep-alive\n\n" : " ")))
        return failed();
    return Progress::More;
}

std::string ReplyWriter::piece(const std::string& text, const std::vector<ReplyToken>& tokens)
{
    const bool first = std::exchange(first_, false);
    if (identity_.shape != ReplyShape::OpenAI)
        return dump(ollama_piece(identity_, text)) + "\n";
    return sse_event(dump(chunk_body(identity_, text, first, std::nullopt, logprobs(tokens))));
}

ReplyTimes ReplyWriter::times() const
{
    const auto end = std::chrono::steady_clock::now();
    const auto first = first_text_.value_or(end);
    return {end - started_, first - started_, end - first};
}

ReplyWriter::Progress ReplyWriter::write_end(const ReplyUpdate& end, const Write& write)
{
    if (end.finish_reason == "cancelled")
        return Progress::Failed;
    const std::string failure = "the reply failed: " + end.error;
    if (identity_.shape != ReplyShape::OpenAI) {
        std::string out;
        if (end.finish_reason == "error") {
            out = dump(ollama_error(failure)) + "\n";
        } else {
            text_ += end.text;
            if (stream_ && !end.text.empty())
                out += piece(end.text, {});
            out += dump(ollama_end(identity_, stream_ ? "" : text_, end.finish_reason,
                                   {end.prompt_tokens, end.completion_tokens}, times())) +
                   "\n";
        }
        return write(out) ? Progress::Done : Progress::Failed;
    }
    if (end.finish_reason == "error") {
        const std::string error = dump(error_body(500, failure));
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
    if (!end.text.empty() || !end.tokens.empty())
        out += piece(end.text, end.tokens);
    out += sse_event(dump(chunk_body(identity_, "", first_, end.finish_reason)));
    if (include_usage_)
        out += sse_event(dump(usage_chunk_body(identity_, usage)));
    out += "data: [DONE]\n\n";
    return write(out) ? Progress::Done : Progress::Failed;
}

} // namespace pyramid::server
