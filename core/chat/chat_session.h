#pragma once
// One conversation's inference state across turns. Each reply either extends the cache the
// previous turns left (prefilling only the new tokens, with the compression's selection
// applied to them) or rebuilds it from the whole conversation; when the conversation does not
// fit the context it stops with a message or drops the oldest exchanges, as the request says.
// The rules are written down in docs/multi-turn.md.
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "chat/chat_engine.h"
#include "generate/inference_session.h"
#include "model/model.h"

namespace pyramid {

class ChatSession {
public:
    explicit ChatSession(std::shared_ptr<Model> model);

    // Never throws for bad input: errors come back as FinishReason::Error / ContextFull, with
    // the text streamed before the error. Consecutive messages of one role count as one
    // (merge_consecutive_messages).
    ChatResult reply(const ChatRequest& asked, const StreamCallbacks& callbacks, const std::atomic<bool>& cancel);

    // Every token fed since the cache was last rebuilt, in order, whether or not compression
    // kept its entries (for tests and diagnostics; KvCache::positions says what it holds).
    const std::vector<int32_t>& fed_tokens() const { return fed_; }

private:
    struct Plan {
        std::vector<int32_t> tokens;  // what to feed now
        bool extend = false;          // after fed_, or from an empty cache
        int dropped_turns = 0;
        int room_needed = 0;          // Reencode: positions to free before extending
        std::optional<ContextShortfall> refused;  // set when the turn does not fit
    };

    Plan plan(const ChatRequest& request, std::string& refusal) const;
    bool can_extend(const ChatRequest& request) const;
    std::vector<int32_t> conversation_tokens(const ChatRequest& request) const;
    // Exchange `exchange` of the request's conversation (a question and its answer, or the
    // question to answer) as conversation_tokens encodes it; `first`: it opens the prompt.
    std::vector<int32_t> exchange_tokens(const ChatRequest& request, size_t exchange, bool first) const;
    std::vector<int32_t> next_turn_tokens(const ChatRequest& request) const;
    void forget();

    std::shared_ptr<Model> model_;
    std::unique_ptr<InferenceSession> session_;
    std::string session_config_;   // JSON of the compression the session runs
    // The conversation the cache holds, the last reply included, and its exact tokens.
    Conversation fed_conversation_;
    int fed_dropped_turns_ = 0;    // oldest exchanges of the app's conversation not in the cache
    PromptFormat fed_format_ = PromptFormat::Llama2Chat;
    std::vector<int32_t> fed_;
};

} // namespace pyramid
