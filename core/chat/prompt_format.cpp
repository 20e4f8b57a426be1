#include "chat/prompt_format.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace pyramid {
namespace {

constexpr std::array<std::pair<PromptFormat, std::string_view>, 7> kNames = {{
    {PromptFormat::Raw, "raw"},
    {PromptFormat::Llama2Chat, "llama-2-chat"},
    {PromptFormat::ChatML, "chatml"},
    {PromptFormat::Llama3, "llama-3"},
    {PromptFormat::Zephyr, "zephyr"},
    {PromptFormat::Gemma, "gemma"},
    {PromptFormat::Phi3, "phi-3"},
}};

}  // namespace

const std::vector<PromptFormat>& all_prompt_formats()
{
    static const std::vector<PromptFormat> formats = [] {
        std::vector<PromptFormat> f;
        for (const auto& [format, name] : kNames)
            f.push_back(format);
        return f;
    }();
    return formats;
}

std::string_view prompt_format_name(PromptFormat format)
{
    for (const auto& [f, name] : kNames)
        if (f == format)
            return name;
    return "raw";
}

std::optional<PromptFormat> prompt_format_from_name(std::string_view name)
{
    for (const auto& [f, n] : kNames)
        if (n == name)
            return f;
    return std::nullopt;
}

std::optional<PromptFormat> detect_chat_template(std::string_view jinja)
{
    const auto has = [&](std::string_view marker) { return jinja.find(marker) != std::string_view::npos; };
    // Checked in llama.cpp's order: the more specific markers first.
    if (has("<|im_start|>"))
        return PromptFormat::ChatML;
    if (has("[INST]"))
        return PromptFormat::Llama2Chat;
    if (has("<|start_header_id|>") && has("<|end_header_id|>"))
        return PromptFormat::Llama3;
    if (has("<|assistant|>") && has("<|end|>"))
        return PromptFormat::Phi3;
    if (has("<|user|>") && has("<|assistant|>"))
        return PromptFormat::Zephyr;
    if (has("<start_of_turn>"))
        return PromptFormat::Gemma;
    return std::nullopt;
}

PromptFormatChoice choose_prompt_format(std::string_view chat_template, std::string_view file_and_model_names)
{
    PromptFormatChoice choice;
    if (const auto detected = detect_chat_template(chat_template)) {
        choice.format = *detected;
        return choice;
    }
    std::string names(file_and_model_names);
    std::transform(names.begin(), names.end(), names.begin(), [](unsigned char c) { return std::tolower(c); });
    const bool chat = names.find("chat") != std::string::npos || names.find("instruct") != std::string::npos;
    choice.format = chat ? PromptFormat::Llama2Chat : PromptFormat::Raw;
    if (!chat_template.empty())
        choice.notice = "the model's chat template is of a family this program does not know; using the " +
                        std::string(prompt_format_name(choice.format)) +
                        " format (choose another with --format or in the settings)";
    return choice;
}

} // namespace pyramid
