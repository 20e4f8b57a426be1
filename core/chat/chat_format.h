#pragma once
// The prompt token sequences the model sees: LLaMA-2-Chat's dialogue format, or raw text.
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
#include "tokenizer/tokenizer.h"

namespace pyramid {

// The conversation with each run of consecutive messages from one role joined into one
// message, their texts separated by a blank line. A question whose reply never came (refused,
// failed, or the app died) is then asked together with the next one instead of breaking the
// alternation the chat format needs.
Conversation merge_consecutive_messages(Conversation conversation);

// The system prompt the format folds into the first turn: empty when the conversation's is
// empty or only whitespace (then there is no <<SYS>> block at all).
std::string effective_system_prompt(const Conversation& conversation);

// Throws pyramid::Error when the messages do not alternate user/assistant starting with the
// user, when the last message is not the user's, or when the vocabulary lacks BOS or EOS.
std::vector<int32_t> format_llama2_chat(const Tokenizer& tok, const Conversation& conversation);

// One exchange as format_llama2_chat encodes it: BOS [INST] (<<SYS>> system <</SYS>>) user
// [/INST], then answer EOS unless `answer` is null (the question to answer). `system` is
// folded in as given (pass effective_system_prompt() for the first exchange, "" for the rest).
std::vector<int32_t> format_llama2_chat_exchange(const Tokenizer& tok, const std::string& system,
                                                 const std::string& user, const std::string* answer);

// BOS (when tok.add_bos()) followed by the tokens of `text`, unchanged: for base models.
std::vector<int32_t> format_raw(const Tokenizer& tok, std::string_view text);

} // namespace pyramid
