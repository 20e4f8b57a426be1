#include "chat/local_chat_engine.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "chat/chat_session.h"
#include "model/model.h"
#include "util/error.h"

namespace pyramid {

LocalChatEngine::LocalChatEngine(const BackendOptions& backend) : backend_(backend) {}
LocalChatEngine::~LocalChatEngine()
{
    // A borrower of the model (shared_model) may be running it: let the cache go in a turn.
    std::lock_guard call(*calls_);
    chat_.reset();
    model_.reset();
}

ModelInfo LocalChatEngine::load_model(const std::string& path, const LoadCallbacks& callbacks,
                                      const std::atomic<bool>& cancel)
{
    std::lock_guard call(*calls_);
    if (cancel.load())  // cancelled while waiting for a reply to end: the open model stays as it is
        throw Cancelled();
    // A model on a GPU is let go first: two seldom fit its memory together, and the new one
    // would land on the CPU for want of room. If the new one fails, the old one is reopened.
    std::string previous;
    {
        std::lock_guard lock(mutex_);
        if (model_ && model_->backend().info().name != "cpu") {
            previous = info_.path;
            spdlog::info("unloading {} to free the GPU for {}", previous, path);
            chat_.reset();
            model_.reset();
            info_ = {};
        }
    }
    const auto progress = [&](double fraction) {
        if (cancel.load())
            throw Cancelled();
        if (callbacks.progress)
            callbacks.progress(fraction);
    };
    try {
        return open(path, progress);
    } catch (const std::exception& failed) {
        if (!previous.empty()) {
            const auto reopen_progress = [&](double fraction) {
                if (callbacks.no_reopen && callbacks.no_reopen->load())
                    throw Cancelled();
                if (callbacks.progress)
                    callbacks.progress(fraction);
            };
            try {
                open(previous, reopen_progress);
            } catch (const std::exception& e) {
                spdlog::error("the previous model {} could not be reopened: {}", previous, e.what());
                throw Error(std::string(failed.what()) + "; the previous model could not be reopened: " + e.what());
            }
        }
        throw;
    }
}

ModelInfo LocalChatEngine::open(const std::string& path, const std::function<void(double)>& progress)
{
    std::shared_ptr<Model> model = Model::open(path, backend_, progress);
    const BackendInfo backend = model->backend().info();
    ModelInfo info;
    info.path = path;
    info.name = model->config().name.empty() ? std::filesystem::path(path).filename().string() : model->config().name;
    info.format = model->files().format;
    info.backend = backend.name + ": " + backend.device;
    info.backend_note = model->backend_note();
    info.n_layers = model->config().n_layers;
    info.n_vocab = model->config().n_vocab;
    info.context_length = model->config().context_length;
    info.weight_bytes = model->weight_bytes();
    info.chat_template = model->files().chat_template;
    spdlog::info("loaded {} ({}, {} layers) on {}", path, info.format, info.n_layers, info.backend);

    std::lock_guard lock(mutex_);
    model_ = std::move(model);
    chat_.reset();
    info_ = info;
    return info;
}

PromptFormatChoice likely_prompt_format(const ModelInfo& info)
{
    return choose_prompt_format(info.chat_template, std::filesystem::path(info.path).filename().string() + " " + info.name);
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
    std::lock_guard call(*calls_);
    std::shared_ptr<Model> model;
    {
        std::lock_guard lock(mutex_);
        model = model_;
        if (model && !chat_)
            chat_ = std::make_unique<ChatSession>(model);
    }
    if (!model) {
        ChatResult result;
        result.reason = FinishReason::Error;
        result.error = "no model is loaded";
        return result;
    }
    return chat_->reply(request, callbacks, cancel);
}

std::optional<DeviceMemory> LocalChatEngine::device_memory() const
{
    std::unique_lock call(*calls_, std::try_to_lock);
    if (!call.owns_lock())
        return std::nullopt;
    std::shared_ptr<Model> model;
    {
        std::lock_guard lock(mutex_);
        model = model_;
    }
    if (!model)
        return std::nullopt;
    return model->backend().info().memory;
}

SharedModel LocalChatEngine::shared_model() const
{
    std::lock_guard lock(mutex_);
    if (!model_)
        return {};
    return {model_, calls_};
}

} // namespace pyramid
