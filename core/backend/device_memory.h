#pragma once
// GPU memory as the device reports it, for the statistics a reply publishes and for a panel
// that follows it between replies.
#include <cstddef>

namespace pyramid {

struct DeviceMemory {
    size_t used = 0;   // by every program on the device
    size_t total = 0;
    size_t held = 0;   // of it, by this engine: weights, KV cache, scratch

    bool operator==(const DeviceMemory&) const = default;
};

} // namespace pyramid
