#include "chat/chat_format.h"

#include <array>
#include <string>

#include "util/error.h"

namespace pyramid {
namespace {

constexpr std::string_view kBeginInst = "[INST]";
constexpr std::string_view kEndInst = "[/INST]";
constexpr std::string_view kBeginSys = "<<SYS>>\n";
constexpr std::string_view kEndSys = "\n<</SYS>>\n\n";

// The characters Python's str.strip() removes (str.isspace()), UTF-8 encoded. UTF-8 being
// prefix-free, matching these at either end of valid UTF-8 text finds whole characters.
constexpr std::array<std::string_view, 29> kPythonWhitespace = {
    "\t", "\n", "\v", "\f", "\r", "\x1c", "\x1d", "\x1e", "\x1f", " ",
    "\xC2\x85", "\xC2\xA0", "\xE1\x9A\x80",
    "\xE2\x80\x80", "\xE2\x80\x81", "\xE2\x80\x82", "\xE2\x80\x83", "\xE2\x80\x84",
    "\xE2\x80\x85", "\xE2\x80\x86", "\xE2\x80\x87", "\xE2\x80\x88", "\xE2\x80\x89",
    "\xE2\x80\x8A", "\xE2\x80\xA8", "\xE2\x80\xA9", "\xE2\x80\xAF", "\xE2\x81\x9F",
    "\xE3\x80\x80",
};

// Meta's reference strips each message with Python's str.strip().
std::string_view python_strip(std::string_view text)
{
    bool trimmed = true;
    while (trimmed) {
        trimmed = false;
        for (const std::string_view ws : kPythonWhitespace) {
            if (text.starts_with(ws)) {
                text.remove_prefix(ws.size());
                trimmed = true;
            }
            if (text.ends_with(ws)) {
                text.remove_suffix(ws.size());
                trimmed = true;
            }
        }
    }
    return text;
}

const char* role_name(ChatRole role) { return role == ChatRole::User ? "the user" : "the assistant"; }

void check_turn_order(const std::vector<ChatMessage>& messages)
{
    if (messages.empty())
        throw Error("the conversation has no messages; expected at least one user message");
    for (size_t i = 0; i < messages.size(); ++i) {
        const ChatRole expected = i % 2 == 0 ? ChatRole::User : ChatRole::Assistant;
        if (messages[i].role != expected)
            throw Error("conversation message " + std::to_string(i + 1) + " is from " +
                        role_name(messages[i].role) + ", expected " + role_name(expected) +
                        " (messages alternate, starting with the user)");
    }
    if (messages.back().role != ChatRole::User)
        throw Error("the last conversation message is from the assistant; expected the user's turn to answer");
}

void append(std::vector<int32_t>& out, const std::vector<int32_t>& ids)
{
    out.insert(out.end(), ids.begin(), ids.end());
}

}  // namespace

Conversation merge_consecutive_messages(Conversation conversation)
{
    std::vector<ChatMessage> merged;
    for (ChatMessage& m : conversation.messages) {
        if (!merged.empty() && merged.back().role == m.role)
            merged.back().text.append("\n\n").append(m.text);
        else
            merged.push_back(std::move(m));
    }
    conversation.messages = std::move(merged);
    return conversation;
}

std::string effective_system_prompt(const Conversation& conversation)
{
    return python_strip(conversation.system_prompt).empty() ? std::string() : conversation.system_prompt;
}

std::vector<int32_t> format_llama2_chat(const Tokenizer& tok, const Conversation& conversation)
{
    const auto& messages = conversation.messages;
    check_turn_order(messages);
    if (tok.bos_id() < 0 || tok.eos_id() < 0)
        throw Error("the LLaMA-2 chat format needs BOS and EOS tokens; the vocabulary has bos_id " +
                    std::to_string(tok.bos_id()) + " and eos_id " + std::to_string(tok.eos_id()));

    std::vector<int32_t> out;
    const std::string system = effective_system_prompt(conversation);
    for (size_t i = 0; i < messages.size(); i += 2) {
        const std::string* answer = i + 1 < messages.size() ? &messages[i + 1].text : nullptr;
        append(out, format_llama2_chat_exchange(tok, i == 0 ? system : std::string(), messages[i].text, answer));
    }
    return out;
}

std::vector<int32_t> format_llama2_chat_exchange(const Tokenizer& tok, const std::string& system,
                                                 const std::string& user, const std::string* answer)
{
    std::string question;
    if (!system.empty())
        question.append(kBeginSys).append(system).append(kEndSys);
    question.append(user);

    std::string turn;
    turn.append(kBeginInst).append(" ").append(python_strip(question)).append(" ").append(kEndInst);
    if (answer)
        turn.append(" ").append(python_strip(*answer)).append(" ");

    std::vector<int32_t> out{tok.bos_id()};
    append(out, tok.encode(turn));
    if (answer)
        out.push_back(tok.eos_id());
    return out;
}

std::vector<int32_t> format_raw(const Tokenizer& tok, std::string_view text)
{
    std::vector<int32_t> out;
    if (tok.add_bos() && tok.bos_id() >= 0)
        out.push_back(tok.bos_id());
    append(out, tok.encode(text));
    return out;
}

} // namespace pyramid
