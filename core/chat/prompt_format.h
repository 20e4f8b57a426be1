#pragma once
// The prompt formats chat models are trained on, and which one a model file asks for.
//
// GGUF files carry their Hugging Face chat template (tokenizer.chat_template, Jinja). Like
// llama.cpp, the engine does not run Jinja: it recognizes the template's family by the
// markers it uses and builds the same tokens itself (chat_format.h).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pyramid {

enum class PromptFormat {
    Raw,         // plain text after BOS, for base models
    Llama2Chat,  // <s>[INST] <<SYS>>..<</SYS>> user [/INST] answer </s>   (LLaMA-2-Chat, Mistral)
    ChatML,      // <|im_start|>user\n..<|im_end|>\n<|im_start|>assistant\n  (SmolLM2, Qwen, ...)
    Llama3,      // <|start_header_id|>user<|end_header_id|>\n\n..<|eot_id|>
    Zephyr,      // <|user|>\n..</s>\n<|assistant|>\n                      (Zephyr, TinyLlama-Chat)
    Gemma,       // <start_of_turn>user\n..<end_of_turn>\n<start_of_turn>model\n
    Phi3,        // <|user|>\n..<|end|>\n<|assistant|>\n
};

// Every format, in the order settings list them.
const std::vector<PromptFormat>& all_prompt_formats();

// "raw", "llama-2-chat", "chatml", "llama-3", "zephyr", "gemma", "phi-3".
std::string_view prompt_format_name(PromptFormat format);
// The format of a name prompt_format_name() gives; nullopt for any other.
std::optional<PromptFormat> prompt_format_from_name(std::string_view name);

// The family of a Jinja chat template, by its markers as llama.cpp tells them apart;
// nullopt for an empty template or one of no family known here.
std::optional<PromptFormat> detect_chat_template(std::string_view jinja);

// What a model file asks for: its chat template's family; without a template (or with one
// of an unknown family) chat-tuned names ("chat" or "instruct" in the file or model name, as
// LLaMA-2-Chat downloads are named) get LLaMA-2-Chat's format and others raw text.
struct PromptFormatChoice {
    PromptFormat format = PromptFormat::Raw;
    // Set when the file has a template of no known family: say so, and that the format can be
    // chosen by hand.
    std::string notice;
};
PromptFormatChoice choose_prompt_format(std::string_view chat_template, std::string_view file_and_model_names);

} // namespace pyramid
