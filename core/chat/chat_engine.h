#pragma once
// The small API the desktop app and the tools use: open a model, answer a conversation with
// streamed tokens, cancel, read statistics. LocalChatEngine implements it on the real
// engine; UI tests implement it with a fake.
//
// Threading: every call may block for a long time and is meant to run on a worker thread.
// Callbacks run on that same thread. `cancel` may be set from any thread.
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "chat/chat_message.h"
#include "chat/context_notice.h"
#include "chat/prompt_format.h"
#include "generate/finish_reason.h"
#include "generate/generation_stats.h"
#include "generate/json_schema.h"
#include "generate/sampling_params.h"
#include "kv/compression_config.h"

namespace pyramid {

class Model;
class TurnLock;

struct ModelInfo {
    std::string path;
    std::string name;
    std::string format;     // "gguf" or "safetensors"
    std::string backend;    // "cpu: 2 threads, f16 KV cache", "cuda: <device name>"
    std::string backend_note;  // why this backend was chosen (e.g. why CUDA is not in use)
    int n_layers = 0;
    int n_vocab = 0;
    int context_length = 0;
    size_t weight_bytes = 0;
    std::string chat_template;  // the file's Jinja chat template, "" when it has none
};

// The format the model asks for (choose_prompt_format on its chat template, file and model
// name), with a notice when its template is of an unknown family.
PromptFormatChoice likely_prompt_format(const ModelInfo& info);

// What happens to the compressed cache when the user sends the next message
// (docs/multi-turn.md): Extend keeps it and prefills only the new tokens; Rebuild prefills
// the whole conversation again.
enum class ContextMode { Extend, Rebuild };

// What happens when the conversation no longer fits the model's context.
enum class OverflowPolicy {
    Stop,             // refuse with a message
    DropOldestTurns,  // forget the oldest exchanges (never the system prompt) and rebuild
    Reencode,         // keep the sink tokens and the most recent positions, renumbered (StreamingLLM-style)
};

struct ChatRequest {
    Conversation conversation;  // last message is the user's turn to answer
    PromptFormat format = PromptFormat::Llama2Chat;
    SamplingParams sampling;
    CompressionConfig compression;
    int max_new_tokens = 512;
    bool ignore_eos = false;     // go on past EOS and BOS (for measuring and testing long replies)
    ContextMode context_mode = ContextMode::Extend;
    OverflowPolicy overflow = OverflowPolicy::Stop;
    size_t kv_memory_limit = 0;  // bytes the KV cache may hold; 0: no limit
    std::shared_ptr<const JsonSchema> json;  // the reply is a value of this schema (generator.h)
};

// Why a turn was refused before any text: its prompt needs `prompt_tokens` plus `reply_room`
// for the reply, and the model's context holds `context_length`. With `message_too_long` the
// prompt counted is the last message's alone: dropping older turns cannot help.
struct ContextShortfall {
    int prompt_tokens = 0;
    int reply_room = 0;
    int context_length = 0;
    bool message_too_long = false;
};

struct ChatResult {
    FinishReason reason = FinishReason::EndOfSequence;
    std::string text;          // the whole reply
    std::string error;         // set when reason == Error or ContextFull
    ContextNotice notice;      // what was done to fit the context, for the user to see
    int dropped_turns = 0;     // oldest user/assistant exchanges left out of the prompt
    std::optional<ContextShortfall> shortfall;  // ContextFull before any text: by how much
    bool reused_cache = false; // Extend: the previous turns' cache was kept
    GenerationStats stats;
};

struct LoadCallbacks {
    std::function<void(double fraction)> progress;  // 0..1
    // Set when the model let go for this load is not wanted back (the app quits, or another
    // model opens next): a failed or cancelled load then ends with no model instead of
    // reopening the previous one, which a plain cancel waits for.
    const std::atomic<bool>* no_reopen = nullptr;
};

struct StreamCallbacks {
    std::function<void(const std::string& piece)> on_text;      // decoded text as it grows
    std::function<void(const GenerationStats&)> on_stats;       // after prefill and each token
};

// The open model, lent to run requests beside the conversations (the desktop app's server).
struct SharedModel {
    std::shared_ptr<Model> model;  // kept alive while held; null when no model is open
    std::shared_ptr<TurnLock> turns;  // every use of the model takes a turn of it (util/turn_lock.h)
};

class ChatEngine {
public:
    virtual ~ChatEngine() = default;

    // Throws pyramid::Error with a message fit for the user; the previous model stays usable
    // when loading fails or is cancelled (an engine may close it during the load to make room,
    // and open it again then).
    virtual ModelInfo load_model(const std::string& path, const LoadCallbacks& callbacks,
                                 const std::atomic<bool>& cancel) = 0;
    virtual bool has_model() const = 0;
    virtual ModelInfo model_info() const = 0;

    // Never throws for bad input: errors come back as FinishReason::Error.
    virtual ChatResult reply(const ChatRequest& request, const StreamCallbacks& callbacks,
                             const std::atomic<bool>& cancel) = 0;

    // The GPU memory now, for a panel to follow while no reply runs (other programs take and
    // free memory too). nullopt when the model runs on the host, none is open, or a load or
    // reply is running: those report it in their statistics, and this never waits for them.
    // Not to be called from a load's or a reply's callbacks.
    virtual std::optional<DeviceMemory> device_memory() const = 0;

    // The open model, for a server to run its requests on. Each load and reply of this engine
    // is one turn of `turns`, and the borrower takes turns of it for every use, so the two never
    // run the model at once. The borrower lets go before a load needs the memory back (a GPU
    // holds one model). Empty when no model is open or the engine does not lend it (default).
    virtual SharedModel shared_model() const { return {}; }
};

} // namespace pyramid
