#pragma once
// What the app and the tools show about the cache and the speed, published after the
// prefill and after every generated token.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend/device_memory.h"

namespace pyramid {

enum class GenerationPhase { Prefill, Decode, Finished };

struct GenerationStats {
    GenerationPhase phase = GenerationPhase::Prefill;
    std::vector<int> layer_kv_lengths;      // entries held per layer
    std::vector<bool> layers_compressed;    // layers that dropped entries on the last step
    int full_kv_length = 0;                 // entries per layer a full cache would hold
    size_t kv_bytes = 0;                    // bytes the cache holds now
    size_t kv_block_bytes = 0;              // the blocks they take (Backend::kv_blocks()); 0: not counted in blocks
    size_t full_kv_bytes = 0;               // bytes a full cache would hold for the same tokens
    int prompt_tokens = 0;
    int generated_tokens = 0;
    int context_length = 0;                 // the model's limit on positions
    int positions_used = 0;                 // positions taken in the context (next position)
    std::string device;                     // where it runs: "cpu (2 threads)", "cuda: NVIDIA H100"
    std::optional<DeviceMemory> device_memory;  // nullopt on the CPU
    double prefill_ms = 0;
    double time_to_first_token_ms = 0;
    double decode_ms = 0;
    double decode_tokens_per_second = 0;
};

} // namespace pyramid
