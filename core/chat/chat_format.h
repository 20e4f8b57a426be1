#pragma once
// The prompt token sequences the model sees, in each prompt format (prompt_format.h).
//
// Every format builds a conversation the same way, which is what lets a cached conversation
// be extended turn by turn exactly as it would be rebuilt (docs/multi-turn.md):
//
//   head(system) + exchange(system, user_1, answer_1, first) + ... + exchange(.., user_n, open)
//
// and, after a reply the model ended with its end-of-turn token, the next turn feeds
// after_reply() + exchange(.., user_n+1, open). Control tokens ("<|im_start|>", "</s>") are
// inserted as ids, found in the vocabulary by their spelling; the text between them is
// encoded as text, so a user who types "<|im_start|>" writes plain text, never the control
// token. A marker the vocabulary does not have as a control token (Zephyr's "<|user|>" in
// TinyLlama) is text, as in llama.cpp, and so are LLaMA-2-Chat's [INST] and <<SYS>>: a user
// or system message that contains such a text marker would fake a turn boundary, so it is
// refused with a message naming the marker, as Meta's reference chat_completion refuses it.
// (The model's own earlier answers are kept as they are.)
//
// No format adds a system prompt the user did not set: SmolLM2's template inserts a default
// one ("You are a helpful AI assistant named SmolLM, ...") with which the model answers
// worse; llama.cpp's ChatML leaves it out too.
//
// LLaMA-2-Chat, as Meta's reference `chat_completion` builds it:
//
//   <s>[INST] <<SYS>>\n{system}\n<</SYS>>\n\n{user} [/INST] {assistant} </s><s>[INST] {user} [/INST]
//
// Each answered turn is encode("[INST] {user} [/INST] {assistant} ") between a BOS and an
// EOS id, the open last turn is encode("[INST] {user} [/INST]") after a BOS id, and a
// system prompt is folded into the first user message. Messages are stripped of
// surrounding whitespace (Python's str.strip()). BOS and EOS are inserted as ids and every
// text segment is encoded on its own, so "<s>" or "</s>" typed by the user stays plain text
// and can never become a control token. [INST] and <<SYS>> are plain text in LLaMA-2 itself:
// a user who types them writes the same tokens as the format. Meta's reference refuses such
// messages; this app lets users say what they like to their own model.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chat/chat_message.h"
#include "chat/prompt_format.h"
#include "tokenizer/tokenizer.h"

namespace pyramid {

class ChatTemplate {
public:
    // Throws pyramid::Error when the vocabulary lacks a token the format cannot do without
    // (LLaMA-2-Chat's BOS and EOS, ChatML's <|im_start|> and <|im_end|>, ...). `tok` must
    // outlive the template. head() and exchange() throw pyramid::Error for a system or user
    // message that contains one of the format's text markers (see above).
    ChatTemplate(const Tokenizer& tok, PromptFormat format);

    PromptFormat format() const { return format_; }

    // What opens the prompt, before the first exchange: BOS where the vocabulary adds one,
    // and the system block in formats that have one.
    std::vector<int32_t> head(const std::string& system) const;
    // One user message and its answer, or the open question when `answer` is null (ending
    // with the assistant's opening). `first`: it follows the head (LLaMA-2-Chat and Gemma fold
    // the system prompt into it; the other formats ignore `system` here).
    std::vector<int32_t> exchange(const std::string& system, const std::string& user, const std::string* answer,
                                  bool first) const;
    // What closes a reply that ended at the model's end-of-turn token (which generation does
    // not feed back), so that the next exchange follows as in a rebuilt conversation.
    std::vector<int32_t> after_reply() const;

    // The whole prompt to answer: head + every exchange. Throws pyramid::Error when the
    // messages do not alternate user/assistant starting with the user, or the last is not the
    // user's.
    std::vector<int32_t> conversation(const Conversation& conversation) const;

private:
    class Builder;
    void refuse_markers(const std::string& text, const char* whose) const;

    const Tokenizer* tok_;
    PromptFormat format_;
    std::vector<std::string> text_markers_;  // turn markers this vocabulary can only spell as text
};

// The conversation with each run of consecutive messages from one role joined into one
// message, their texts separated by a blank line. A question whose reply never came (refused,
// failed, or the app died) is then asked together with the next one instead of breaking the
// alternation the chat format needs.
Conversation merge_consecutive_messages(Conversation conversation);

// The system prompt the format folds into the first turn: empty when the conversation's is
// empty or only whitespace (then there is no <<SYS>> block at all).
std::string effective_system_prompt(const Conversation& conversation);

// One LLaMA-2-Chat exchange as ChatTemplate encodes it: BOS [INST] (<<SYS>> system <</SYS>>) user
// [/INST], then answer EOS unless `answer` is null (the question to answer). `system` is
// folded in as given (pass effective_system_prompt() for the first exchange, "" for the rest).
std::vector<int32_t> format_llama2_chat_exchange(const Tokenizer& tok, const std::string& system,
                                                 const std::string& user, const std::string* answer);

// BOS (when tok.add_bos()) followed by the tokens of `text`, unchanged: for base models.
std::vector<int32_t> format_raw(const Tokenizer& tok, std::string_view text);

} // namespace pyramid
