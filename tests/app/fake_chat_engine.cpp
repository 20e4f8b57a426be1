#include "fake_chat_engine.h"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <thread>

#include "util/error.h"

using namespace pyramid;

namespace {

// What the script reports: a total of 0 is a CPU run.
std::optional<DeviceMemory> deviceMemoryOf(const FakeScript& script)
{
    if (script.deviceMemoryTotal == 0)
        return std::nullopt;
    return DeviceMemory{script.deviceMemoryUsed, script.deviceMemoryTotal, 0};
}

} // namespace

FakeChatEngine::FakeChatEngine(FakeScript script) : script_(std::move(script)) {}

ModelInfo FakeChatEngine::load_model(const std::string& path, const LoadCallbacks& callbacks,
                                     const std::atomic<bool>& cancel)
{
    const FakeScript script = [&] {
        std::lock_guard lock(mutex_);
        return script_;
    }();
    const std::string name = std::filesystem::path(path).filename().string();
    const auto dropModel = [&] {
        std::lock_guard lock(mutex_);
        if (script.dropModelOnFailedLoad)
            loaded_ = false;
    };
    for (int step = 1; step <= 10; ++step) {
        std::this_thread::sleep_for(script.loadStepDelay);
        if (cancel) {
            dropModel();
            std::lock_guard lock(mutex_);
            cancelledWithoutReopen_.push_back(callbacks.no_reopen && callbacks.no_reopen->load());
            throw Cancelled();
        }
        if (callbacks.progress)
            callbacks.progress(step / 10.0);
        if (step == 5 && name.find("broken") != std::string::npos) {
            dropModel();
            throw Error("model file " + path + " is truncated: expected 4096 bytes of tensor data, found 12");
        }
    }
    ModelInfo info;
    info.path = path;
    info.name = std::filesystem::path(path).stem().string();
    info.format = "gguf";
    info.backend = script.device;
    info.backend_note = "fake engine";
    info.n_layers = script.layers;
    info.n_vocab = 512;
    info.context_length = 512;
    info.weight_bytes = 1000000;
    std::lock_guard lock(mutex_);
    info_ = info;
    loaded_ = true;
    return info;
}

std::optional<pyramid::DeviceMemory> FakeChatEngine::device_memory() const
{
    std::lock_guard lock(mutex_);
    const auto memory = loaded_ ? deviceMemoryOf(script_) : std::nullopt;
    if (memory)
        ++deviceMemoryReads_;
    return memory;
}

int FakeChatEngine::deviceMemoryReads() const
{
    std::lock_guard lock(mutex_);
    return deviceMemoryReads_;
}

bool FakeChatEngine::has_model() const
{
    std::lock_guard lock(mutex_);
    return loaded_;
}

ModelInfo FakeChatEngine::model_info() const
{
    std::lock_guard lock(mutex_);
    return info_;
}

void FakeChatEngine::setScript(const FakeScript& script)
{
    std::lock_guard lock(mutex_);
    script_ = script;
}

std::vector<ChatRequest> FakeChatEngine::requests() const
{
    std::lock_guard lock(mutex_);
    return requests_;
}

std::vector<bool> FakeChatEngine::cancelledLoadsWithoutReopen() const
{
    std::lock_guard lock(mutex_);
    return cancelledWithoutReopen_;
}

int FakeChatEngine::promptTokens(const ChatRequest& request)
{
    int words = 0;
    const auto count = [&](const std::string& text) {
        std::istringstream in(text);
        std::string word;
        while (in >> word)
            ++words;
    };
    count(request.conversation.system_prompt);
    for (const ChatMessage& m : request.conversation.messages)
        count(m.text);
    return words + 8;
}

int FakeChatEngine::layerLength(CompressionPolicyKind policy, int layer, int layers, int full)
{
    if (policy == CompressionPolicyKind::Full)
        return full;
    return std::max(1, full * (layers - layer) / layers);
}

GenerationStats FakeChatEngine::stats(const ChatRequest& request, const FakeScript& script, int generated,
                                      GenerationPhase phase) const
{
    GenerationStats s;
    s.phase = phase;
    s.prompt_tokens = promptTokens(request);
    s.generated_tokens = generated;
    s.full_kv_length = s.prompt_tokens + generated;
    s.context_length = 512;
    s.positions_used = s.full_kv_length;
    s.device = script.device;
    s.device_memory = deviceMemoryOf(script);
    size_t entries = 0;
    for (int layer = 0; layer < script.layers; ++layer) {
        const int length = layerLength(request.compression.policy, layer, script.layers, s.full_kv_length);
        s.layer_kv_lengths.push_back(length);
        s.layers_compressed.push_back(length < s.full_kv_length);
        entries += static_cast<size_t>(length);
    }
    s.kv_bytes = entries * script.bytesPerEntry;
    s.full_kv_bytes = static_cast<size_t>(script.layers) * static_cast<size_t>(s.full_kv_length) * script.bytesPerEntry;
    s.time_to_first_token_ms = 2.0 * static_cast<double>(script.delay.count());
    s.decode_tokens_per_second = generated > 0 ? 1000.0 / std::max<double>(1, static_cast<double>(script.delay.count())) : 0;
    return s;
}

ChatResult FakeChatEngine::reply(const ChatRequest& request, const StreamCallbacks& callbacks,
                                 const std::atomic<bool>& cancel)
{
    ChatResult result;
    const FakeScript script = [&] {
        std::lock_guard lock(mutex_);
        requests_.push_back(request);
        const std::vector<ChatMessage>& messages = request.conversation.messages;
        result.reused_cache = request.context_mode == ContextMode::Extend && !answered_.empty() &&
                              answered_.size() + 1 == messages.size() &&
                              std::equal(answered_.begin(), answered_.end(), messages.begin(),
                                         [](const ChatMessage& a, const ChatMessage& b) {
                                             return a.role == b.role && a.text == b.text;
                                         });
        answered_.clear();
        return script_;
    }();
    if (script.refuseContextFull) {
        result.reason = FinishReason::ContextFull;
        result.reused_cache = false;
        result.error = "the conversation needs " + std::to_string(promptTokens(request)) +
                       " tokens plus 128 for the reply, but the model's context holds 512";
        result.shortfall = pyramid::ContextShortfall{static_cast<int>(promptTokens(request)), 128, 512,
                                                     script.messageTooLong};
        return result;
    }
    if (script.failAtOnce) {
        result.reason = FinishReason::Error;
        result.error = script.replyError;
        return result;
    }
    result.notice = script.notice;
    result.dropped_turns = script.droppedTurns;
    if (callbacks.on_stats)
        callbacks.on_stats(stats(request, script, 0, GenerationPhase::Prefill));
    int generated = 0;
    result.reason = FinishReason::EndOfSequence;
    for (const std::string& piece : script.pieces) {
        std::this_thread::sleep_for(script.delay);
        if (cancel) {
            result.reason = FinishReason::Cancelled;
            break;
        }
        if (generated == request.max_new_tokens) {
            result.reason = FinishReason::MaxTokens;
            break;
        }
        if (generated == script.contextFullAfter) {
            result.reason = FinishReason::ContextFull;
            break;
        }
        result.text += piece;
        ++generated;
        if (callbacks.on_text)
            callbacks.on_text(piece);
        if (callbacks.on_stats)
            callbacks.on_stats(stats(request, script, generated, GenerationPhase::Decode));
        if (!script.replyError.empty()) {
            result.reason = FinishReason::Error;
            result.error = script.replyError;
            break;
        }
    }
    result.stats = stats(request, script, generated, GenerationPhase::Finished);
    if (result.reason != FinishReason::Error) {
        std::lock_guard lock(mutex_);
        answered_ = request.conversation.messages;
        answered_.push_back({ChatRole::Assistant, result.text});
    }
    return result;
}
