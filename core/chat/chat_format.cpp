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

namespace {

// Whitespace C's isspace() knows, at both ends: how llama.cpp trims the messages of the
// formats it trims (LLaMA-3, Gemma) and how raw text is stripped.
std::string_view trim(std::string_view text)
{
    constexpr std::string_view kSpace = " \t\n\v\f\r";
    const size_t first = text.find_first_not_of(kSpace);
    if (first == std::string_view::npos)
        return {};
    return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

// The turn markers a format writes, with those that must be control tokens.
std::vector<std::string_view> turn_markers(PromptFormat format)
{
    switch (format) {
    case PromptFormat::Llama2Chat: return {"[INST]", "[/INST]", "<<SYS>>", "<</SYS>>"};
    case PromptFormat::ChatML: return {"<|im_start|>", "<|im_end|>"};
    case PromptFormat::Llama3: return {"<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"};
    case PromptFormat::Zephyr: return {"<|system|>", "<|user|>", "<|assistant|>"};
    case PromptFormat::Gemma: return {"<start_of_turn>", "<end_of_turn>"};
    case PromptFormat::Phi3: return {"<|system|>", "<|user|>", "<|assistant|>", "<|end|>"};
    case PromptFormat::Raw: return {};
    }
    return {};
}

// The control tokens a format cannot do without.
std::vector<std::string_view> required_tokens(PromptFormat format)
{
    switch (format) {
    case PromptFormat::ChatML: return {"<|im_start|>", "<|im_end|>"};
    case PromptFormat::Llama3: return {"<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"};
    case PromptFormat::Gemma: return {"<start_of_turn>", "<end_of_turn>"};
    case PromptFormat::Phi3: return {"<|end|>"};
    default: return {};
    }
}

}  // namespace

// Text and control tokens in order; text between two control tokens is encoded at once, as
// llama.cpp encodes a formatted prompt with its control tokens parsed.
class ChatTemplate::Builder {
public:
    explicit Builder(const Tokenizer& tok) : tok_(tok) {}

    Builder& text(std::string_view t)
    {
        pending_.append(t);
        return *this;
    }
    // The control token spelled `spelling`, or the spelling as text when the vocabulary has none.
    Builder& control(std::string_view spelling)
    {
        const int32_t id = tok_.special_token_id(spelling);
        return id >= 0 ? token(id) : text(spelling);
    }
    Builder& token(int32_t id)
    {
        flush();
        ids_.push_back(id);
        return *this;
    }
    Builder& bos_if_added()
    {
        if (tok_.add_bos() && tok_.bos_id() >= 0)
            token(tok_.bos_id());
        return *this;
    }
    std::vector<int32_t> take()
    {
        flush();
        return std::move(ids_);
    }

private:
    void flush()
    {
        if (pending_.empty())
            return;
        append(ids_, tok_.encode(pending_));
        pending_.clear();
    }

    const Tokenizer& tok_;
    std::vector<int32_t> ids_;
    std::string pending_;
};

ChatTemplate::ChatTemplate(const Tokenizer& tok, PromptFormat format) : tok_(&tok), format_(format)
{
    const std::string name(prompt_format_name(format));
    for (const std::string_view spelling : required_tokens(format))
        if (tok.special_token_id(spelling) < 0)
            throw Error("the " + name + " prompt format needs the control token " + std::string(spelling) +
                        ", which this model's vocabulary does not have; choose another format");
    // LLaMA-2's markers are plain text in LLaMA-2 itself; the others only where the vocabulary
    // lacks them as control tokens.
    for (const std::string_view marker : turn_markers(format))
        if (format == PromptFormat::Llama2Chat || tok.special_token_id(marker) < 0)
            text_markers_.emplace_back(marker);
    const bool needs_eos = format == PromptFormat::Llama2Chat || format == PromptFormat::Zephyr;
    if (needs_eos && (tok.eos_id() < 0 || (format == PromptFormat::Llama2Chat && tok.bos_id() < 0)))
        throw Error("the " + name + " prompt format needs BOS and EOS tokens; the vocabulary has bos_id " +
                    std::to_string(tok.bos_id()) + " and eos_id " + std::to_string(tok.eos_id()));
}

void ChatTemplate::refuse_markers(const std::string& text, const char* whose) const
{
    for (const std::string& marker : text_markers_)
        if (text.find(marker) != std::string::npos)
            throw Error(std::string(whose) + " contains \"" + marker + "\", which the " +
                        std::string(prompt_format_name(format_)) +
                        " prompt format uses to mark turns: the model would read it as a turn boundary. Remove it, "
                        "or choose the raw format");
}

std::vector<int32_t> ChatTemplate::head(const std::string& system) const
{
    refuse_markers(system, "the system prompt");
    Builder b(*tok_);
    const bool has_system = !python_strip(system).empty();
    switch (format_) {
    case PromptFormat::Llama2Chat:
        break;  // every exchange starts with its own BOS; the system prompt goes into the first
    case PromptFormat::Raw:
    case PromptFormat::Gemma:
        b.bos_if_added();
        break;
    case PromptFormat::ChatML:
        b.bos_if_added();
        if (has_system)
            b.control("<|im_start|>").text("system\n").text(system).control("<|im_end|>").text("\n");
        break;
    case PromptFormat::Llama3:
        b.bos_if_added();
        if (has_system)
            b.control("<|start_header_id|>").text("system").control("<|end_header_id|>").text("\n\n")
                .text(trim(system)).control("<|eot_id|>");
        break;
    case PromptFormat::Zephyr:
        b.bos_if_added();
        if (has_system)
            b.control("<|system|>").text("\n").text(system).token(tok_->eos_id()).text("\n");
        break;
    case PromptFormat::Phi3:
        b.bos_if_added();
        if (has_system)
            b.control("<|system|>").text("\n").text(system).control("<|end|>").text("\n");
        break;
    }
    return b.take();
}

std::vector<int32_t> ChatTemplate::exchange(const std::string& system, const std::string& user,
                                            const std::string* answer, bool first) const
{
    refuse_markers(user, "the message");
    if (first)
        refuse_markers(system, "the system prompt");
    Builder b(*tok_);
    switch (format_) {
    case PromptFormat::Raw: {
        // Each message encoded on its own, so a conversation extends exactly as it is rebuilt.
        std::vector<int32_t> ids = tok_->encode(trim(user));
        if (answer)
            append(ids, tok_->encode(trim(*answer)));
        return ids;
    }
    case PromptFormat::Llama2Chat:
        return format_llama2_chat_exchange(*tok_, first ? system : std::string(), user, answer);
    case PromptFormat::ChatML:
        b.control("<|im_start|>").text("user\n").text(user).control("<|im_end|>").text("\n");
        b.control("<|im_start|>").text("assistant\n");
        if (answer)
            b.text(*answer).control("<|im_end|>").text("\n");
        break;
    case PromptFormat::Llama3:
        b.control("<|start_header_id|>").text("user").control("<|end_header_id|>").text("\n\n").text(trim(user));
        b.control("<|eot_id|>").control("<|start_header_id|>").text("assistant").control("<|end_header_id|>").text("\n\n");
        if (answer)
            b.text(trim(*answer)).control("<|eot_id|>");
        break;
    case PromptFormat::Zephyr:
        b.control("<|user|>").text("\n").text(user).token(tok_->eos_id()).text("\n");
        b.control("<|assistant|>").text("\n");
        if (answer)
            b.text(*answer).token(tok_->eos_id()).text("\n");
        break;
    case PromptFormat::Gemma:
        b.control("<start_of_turn>").text("user\n");
        if (first && !python_strip(system).empty())
            b.text(trim(system)).text("\n\n");
        b.text(trim(user)).control("<end_of_turn>").text("\n").control("<start_of_turn>").text("model\n");
        if (answer)
            b.text(trim(*answer)).control("<end_of_turn>").text("\n");
        break;
    case PromptFormat::Phi3:
        b.control("<|user|>").text("\n").text(user).control("<|end|>").text("\n").control("<|assistant|>").text("\n");
        if (answer)
            b.text(*answer).control("<|end|>").text("\n");
        break;
    }
    return b.take();
}

std::vector<int32_t> ChatTemplate::after_reply() const
{
    Builder b(*tok_);
    switch (format_) {
    case PromptFormat::Raw: break;
    case PromptFormat::Llama2Chat: b.token(tok_->eos_id()); break;
    case PromptFormat::ChatML: b.control("<|im_end|>").text("\n"); break;
    case PromptFormat::Llama3: b.control("<|eot_id|>"); break;
    case PromptFormat::Zephyr: b.token(tok_->eos_id()).text("\n"); break;
    case PromptFormat::Gemma: b.control("<end_of_turn>").text("\n"); break;
    case PromptFormat::Phi3: b.control("<|end|>").text("\n"); break;
    }
    return b.take();
}

std::vector<int32_t> ChatTemplate::conversation(const Conversation& conversation) const
{
    const auto& messages = conversation.messages;
    check_turn_order(messages);
    const std::string system = effective_system_prompt(conversation);
    std::vector<int32_t> out = head(system);
    for (size_t i = 0; i < messages.size(); i += 2) {
        const std::string* answer = i + 1 < messages.size() ? &messages[i + 1].text : nullptr;
        append(out, exchange(system, messages[i].text, answer, i == 0));
    }
    return out;
}

} // namespace pyramid
