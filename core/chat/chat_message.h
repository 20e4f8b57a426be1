#pragma once
// One turn of a conversation as the user and the model wrote it (text, not tokens).
#include <string>
#include <vector>

namespace pyramid {

enum class ChatRole { User, Assistant };

struct ChatMessage {
    ChatRole role = ChatRole::User;
    std::string text;
};

struct Conversation {
    std::string system_prompt;           // empty: none
    std::vector<ChatMessage> messages;   // starting with the user; alternating as the chat format needs
                                         // (merge_consecutive_messages makes them so)
};

} // namespace pyramid
