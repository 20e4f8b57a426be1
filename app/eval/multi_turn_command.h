#pragma once
// `pyramid-eval multiturn`: the two multi-turn modes (extend the compressed cache, or rebuild
// it every turn) side by side on transcripts cut from a text file: each transcript is one
// story split into turns of a user prompt and a reference reply (core/eval/multi_turn_eval.h).
// Prints a per-turn table (time to first token, KV bytes, PPL of the replies, argmax
// agreement) and writes JSON on request.
#include <string>

#include <CLI/CLI.hpp>

#include "engine_options.h"

namespace pyramid {

class MultiTurnCommand {
public:
    explicit MultiTurnCommand(CLI::App& parent);
    bool chosen() const { return app_->parsed(); }
    // Exit codes as `ppl`: 0 done, 2 bad options or input, 3 model failed to load, 4 a run failed.
    int run();

private:
    CLI::App* app_;
    std::string model_path_, text_path_, json_path_, paragraph_prefix_ = "Once upon a time";
    int turns_ = 3, prompt_tokens_ = 120, reply_tokens_ = 40, transcripts_ = 16;
    CompressionOptions compression_{"pyramid"};
    DeviceOption device_{KvPrecision::F32};
};

} // namespace pyramid
