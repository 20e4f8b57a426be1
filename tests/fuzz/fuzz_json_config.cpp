// A compression config from anywhere (--config FILE, the app's settings): it must be refused
// with pyramid::Error or accepted, never crash, hang or recurse past the stack, and an accepted
// one must survive a round trip through its JSON form unchanged.
#include <spdlog/spdlog.h>

#include "kv/compression_config.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const bool quiet = [] {
        spdlog::set_level(spdlog::level::off);
        return true;
    }();
    (void)quiet;
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const pyramid::CompressionConfig config = pyramid::compression_config_from_json(text);
        const std::string json = pyramid::compression_config_to_json(config);
        if (pyramid::compression_config_to_json(pyramid::compression_config_from_json(json)) != json)
            __builtin_trap();  // an accepted config that does not read back as itself
    } catch (const pyramid::Error&) {
    }
    return 0;
}
