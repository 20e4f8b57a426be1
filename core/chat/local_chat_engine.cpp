#include "chat/local_chat_engine.h"

#include <spdlog/spdlog.h>

#include "chat/chat_format.h"
#include "generate/generator.h"
#include "generate/inference_session.h"
#include "model/model.h"
#include "util/error.h"

namespace pyramid {
namespace {

std::vector<int32_t> prompt_tokens(const Model& model, const ChatRequest& request)
{
    if (request.format == PromptFormat::LlamaChat)
        return format_llama2_chat(model.tokenizer(), request.conversation);
    std::string text;
    for (const ChatMessage& m : request.conversation.messages)
        text += (text.empty() ? "" : "\n") + m.text;
    return format_raw(model.tokenizer(), text);
}

} // namespace

LocalChatEngine::LocalChatEngine(BackendPreference preference) : preference_(preference) {}
LocalChatEngine::~LocalChatEngine() = default;

ModelInfo LocalChatEngine::load_model(const std::string& path, const LoadCallbacks& callbacks,
                                      const std::atomic<bool>& cancel)
{
    const auto progress = [&](double fraction) {
        if (cancel.load())
            throw Cancelled();
        if (callbacks.progress)
            callbacks.progress(fraction);
    };
    std::shared_ptr<Model> model = Model::open(path, preference_, progress);
    const BackendInfo backend = model->backend().info();
    ModelInfo info;
    info.path = path;
    info.name = model->config().name.empty() ? std::filesystem::path(path).filename().string() : model->config().name;
    info.format = model->files().format;
    info.backend = backend.name == "cpu" ? "cpu" : backend.name + ": " + backend.device;
    info.backend_note = model->backend_note();
    info.n_layers = model->config().n_layers;
    info.n_vocab = model->config().n_vocab;
    info.context_length = model->config().context_length;
    info.weight_bytes = model->weight_bytes();
    spdlog::info("loaded {} ({}, {} layers) on {}", path, info.format, info.n_layers, info.backend);

    std::lock_guard lock(mutex_);
    model_ = std::move(model);
    info_ = info;
    return info;
}

bool LocalChatEngine::has_model() const
{
    std::lock_guard lock(mutex_);
    return model_ != nullptr;
}

ModelInfo LocalChatEngine::model_info() const
{
    std::lock_guard lock(mutex_);
    return info_;
}

ChatResult LocalChatEngine::reply(const ChatRequest& request, const StreamCallbacks& callbacks,
                                  const std::atomic<bool>& cancel)
{
    ChatResult result;
    std::shared_ptr<Model> model;
    {
        std::lock_guard lock(mutex_);
        model = model_;
    }
    if (!model) {
        result.reason = FinishReason::Error;
        result.error = "no model is loaded";
        return result;
    }
    try {
        const std::vector<int32_t> prompt = prompt_tokens(*model, request);
        if (static_cast<int>(prompt.size()) >= model->config().context_length) {
            result.reason = FinishReason::ContextFull;
            result.error = "the conversation has " + std::to_string(prompt.size()) +
                           " tokens but the model's context holds " + std::to_string(model->config().context_length);
            return result;
        }
        InferenceSession session(model->backend(), request.compression);
        GenerateOptions options;
        options.max_new_tokens = request.max_new_tokens;
        options.sampling = request.sampling;
        GenerateCallbacks cb;
        cb.on_token = [&](int32_t, const std::string& text) {
            if (callbacks.on_text && !text.empty())
                callbacks.on_text(text);
        };
        cb.on_stats = callbacks.on_stats;
        GenerateResult generated = generate(session, model->tokenizer(), prompt, options, cb, cancel);
        result.reason = generated.reason;
        result.text = std::move(generated.text);
        result.stats = std::move(generated.stats);
    } catch (const std::exception& e) {
        result.reason = FinishReason::Error;
        result.error = e.what();
        spdlog::error("reply failed: {}", e.what());
    }
    return result;
}

} // namespace pyramid
