#include "chat/chat_session.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "chat/chat_format.h"
#include "generate/generator.h"
#include "util/error.h"

namespace pyramid {
namespace {

std::string strip(const std::string& s)
{
    const auto first = s.find_first_not_of(" \t\r\n");
    if (first == std::string::npos)
        return {};
    return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

bool same_messages(const std::vector<ChatMessage>& a, const std::vector<ChatMessage>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const ChatMessage& x, const ChatMessage& y) {
        return x.role == y.role && strip(x.text) == strip(y.text);
    });
}

// What an InferenceSession is built from: a request with another key needs a new session.
std::string session_key(const ChatRequest& request)
{
    return compression_config_to_json(request.compression) + "\nkv limit " + std::to_string(request.kv_memory_limit);
}

// Room a reply needs besides the prompt before a conversation counts as not fitting.
int reply_room(const ChatRequest& request, int context)
{
    return std::clamp(request.max_new_tokens, 1, std::max(1, context / 4));
}

} // namespace

ChatSession::ChatSession(std::shared_ptr<Model> model) : model_(std::move(model)) {}

void ChatSession::forget()
{
    fed_.clear();
    fed_conversation_ = {};
    fed_dropped_turns_ = 0;
    if (session_)
        session_->reset();
}

std::vector<int32_t> ChatSession::conversation_tokens(const ChatRequest& request) const
{
    return ChatTemplate(model_->tokenizer(), request.format).conversation(request.conversation);
}

std::vector<int32_t> ChatSession::next_turn_tokens(const ChatRequest& request) const
{
    // Close the previous answer, then open a turn exactly as the format opens its last one.
    const ChatTemplate format(model_->tokenizer(), request.format);
    std::vector<int32_t> tokens = format.after_reply();
    const auto open = format.exchange({}, request.conversation.messages.back().text, nullptr, false);
    tokens.insert(tokens.end(), open.begin(), open.end());
    return tokens;
}

bool ChatSession::can_extend(const ChatRequest& request) const
{
    const auto& messages = request.conversation.messages;
    const size_t skipped = 2 * static_cast<size_t>(fed_dropped_turns_);
    if (messages.size() < skipped + 1)
        return false;
    return request.context_mode == ContextMode::Extend && session_ && !fed_.empty() &&
           session_config_ == session_key(request) && fed_format_ == request.format &&
           effective_system_prompt(fed_conversation_) == effective_system_prompt(request.conversation) &&
           same_messages(fed_conversation_.messages,
                         std::vector<ChatMessage>(messages.begin() + static_cast<ptrdiff_t>(skipped), messages.end() - 1));
}

ChatSession::Plan ChatSession::plan(const ChatRequest& request, std::string& refusal) const
{
    const int context = model_->config().context_length;
    const int room = reply_room(request, context);
    if (can_extend(request)) {
        Plan p;
        p.tokens = next_turn_tokens(request);
        p.extend = true;
        p.dropped_turns = fed_dropped_turns_;
        const int needed = static_cast<int>(p.tokens.size()) + room;
        if (session_->next_position() + needed <= context)
            return p;
        if (request.overflow == OverflowPolicy::Reencode && needed <= session_->largest_room()) {
            p.room_needed = needed;
            return p;
        }
    }
    Plan p;
    p.tokens = conversation_tokens(request);
    const auto fits = [&](size_t tokens) { return tokens + static_cast<size_t>(room) <= static_cast<size_t>(context); };
    const auto refuse = [&](size_t tokens, const char* why, bool alone = false) {
        refusal = "the conversation needs " + std::to_string(tokens) + " tokens plus " + std::to_string(room) +
                  " for the reply, but the model's context holds " + std::to_string(context) + why;
        Plan refused;
        refused.refused = ContextShortfall{static_cast<int>(tokens), room, context, alone};
        return refused;
    };
    const auto refuse_alone = [&](size_t tokens) {
        return refuse(tokens, "; the last message alone is too long", true);
    };
    if (fits(p.tokens.size()))
        return p;
    const size_t exchanges = (request.conversation.messages.size() + 1) / 2;
    const std::vector<int32_t> head =
        ChatTemplate(model_->tokenizer(), request.format).head(effective_system_prompt(request.conversation));
    if (exchanges == 1)
        return refuse_alone(p.tokens.size());
    // Re-encoding needs a cache to keep; a conversation rebuilt from text drops turns instead.
    if (request.overflow == OverflowPolicy::Stop) {
        // Advice to drop turns helps only a message that fits on its own.
        const size_t alone = head.size() + exchange_tokens(request, exchanges - 1, true).size();
        if (!fits(alone))
            return refuse_alone(alone);
        return refuse(p.tokens.size(), "; start a new conversation or allow dropping old turns");
    }

    // Drop the fewest oldest exchanges that make it fit. Each exchange is encoded once; only
    // the one that becomes the first is encoded again, with the system prompt.
    std::vector<std::vector<int32_t>> later(exchanges);  // each exchange as a later one
    size_t rest = 0;  // tokens of the exchanges after the first one kept
    for (size_t e = 1; e < exchanges; ++e) {
        later[e] = exchange_tokens(request, e, false);
        rest += later[e].size();
    }
    size_t needed = p.tokens.size();
    for (size_t first = 1; first < exchanges; ++first) {
        rest -= later[first].size();
        const std::vector<int32_t> opening = exchange_tokens(request, first, true);
        needed = head.size() + opening.size() + rest;
        if (fits(needed)) {
            p.tokens = head;
            p.tokens.insert(p.tokens.end(), opening.begin(), opening.end());
            for (size_t e = first + 1; e < exchanges; ++e)
                p.tokens.insert(p.tokens.end(), later[e].begin(), later[e].end());
            p.dropped_turns = static_cast<int>(first);
            return p;
        }
    }
    return refuse_alone(needed);
}

std::vector<int32_t> ChatSession::exchange_tokens(const ChatRequest& request, size_t exchange, bool first) const
{
    const auto& messages = request.conversation.messages;
    const std::string* answer = 2 * exchange + 1 < messages.size() ? &messages[2 * exchange + 1].text : nullptr;
    return ChatTemplate(model_->tokenizer(), request.format)
        .exchange(effective_system_prompt(request.conversation), messages[2 * exchange].text, answer, first);
}

ChatResult ChatSession::reply(const ChatRequest& asked, const StreamCallbacks& callbacks,
                              const std::atomic<bool>& cancel)
{
    ChatResult result;
    std::string streamed;  // what the user has seen, kept when an exception ends the reply
    try {
        ChatRequest request = asked;
        request.conversation = merge_consecutive_messages(std::move(request.conversation));
        const auto& messages = request.conversation.messages;
        if (messages.empty() || messages.back().role != ChatRole::User)
            throw Error("the conversation must end with a user message");
        if (cancel.load()) {  // stopped while the reply waited its turn: no prompt to build
            result.reason = FinishReason::Cancelled;
            return result;
        }
        std::string refusal;
        const Plan p = plan(request, refusal);
        if (!refusal.empty()) {
            result.reason = FinishReason::ContextFull;
            result.error = refusal;
            result.shortfall = p.refused;
            return result;
        }
        const std::string config = session_key(request);
        if (!session_ || config != session_config_) {
            session_ = std::make_unique<InferenceSession>(model_->backend(), request.compression,
                                                          request.kv_memory_limit);
            session_config_ = config;
        }
        const int previously_dropped = fed_dropped_turns_;
        if (!p.extend)
            forget();
        result.dropped_turns = p.dropped_turns;
        result.reused_cache = p.extend;
        if (p.dropped_turns > previously_dropped || (!p.extend && p.dropped_turns > 0))
            result.notice = {ContextNotice::Kind::TurnsDropped, p.dropped_turns};
        spdlog::debug("reply: {} {} tokens ({} cached)", p.extend ? "extending with" : "prefilling", p.tokens.size(),
                      fed_.size());

        int positions_freed = p.room_needed > 0 ? session_->make_room(p.room_needed) : 0;
        GenerateOptions options;
        options.max_new_tokens = request.max_new_tokens;
        options.stop_at_eos = !request.ignore_eos;
        options.sampling = request.sampling;
        options.extend_cache = p.extend;
        if (p.extend)
            options.earlier_tokens = fed_;
        options.make_room_when_full = request.overflow == OverflowPolicy::Reencode;
        options.json = request.json;
        GenerateCallbacks cb;
        cb.on_token = [&](int32_t, const std::string& text) {
            streamed += text;
            if (callbacks.on_text && !text.empty())
                callbacks.on_text(text);
        };
        cb.on_stats = callbacks.on_stats;
        GenerateResult generated = generate(*session_, model_->tokenizer(), p.tokens, options, cb, cancel);
        result.reason = generated.reason;
        result.text = std::move(generated.text);
        result.stats = std::move(generated.stats);
        positions_freed += generated.positions_freed;
        if (positions_freed > 0)
            result.notice = {ContextNotice::Kind::PositionsRenumbered, positions_freed};
        if (result.notice)
            spdlog::info("{}", describe(result.notice));

        if (generated.reason == FinishReason::Error) {  // the cache may be half-updated
            result.error = generated.error;
            spdlog::error("reply ended early: {}", generated.error);
            forget();
            return result;
        }
        if (session_->next_position() == 0) {  // cancelled during the prompt: nothing is cached
            forget();
            return result;
        }
        fed_.insert(fed_.end(), p.tokens.begin(), p.tokens.end());
        fed_.insert(fed_.end(), generated.tokens.begin(), generated.tokens.end());
        fed_conversation_ = request.conversation;
        fed_conversation_.messages.erase(fed_conversation_.messages.begin(),
                                         fed_conversation_.messages.begin() + 2 * p.dropped_turns);
        fed_dropped_turns_ = p.dropped_turns;
        fed_conversation_.messages.push_back({ChatRole::Assistant, result.text});
        fed_format_ = request.format;
    } catch (const std::exception& e) {
        forget();
        result.reason = FinishReason::Error;
        result.text = std::move(streamed);
        result.error = e.what();
        spdlog::error("reply failed: {}", e.what());
    }
    return result;
}

} // namespace pyramid
