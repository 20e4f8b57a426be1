// A GGUF file from anywhere: the reader and loader must reject it with pyramid::Error or load
// it; an embedded vocabulary must become a tokenizer or be rejected. Never crash, hang or
// allocate without bound.
#include "fuzz_file.h"
#include "model/model_loader.h"
#include "tokenizer/tokenizer.h"
#include "util/error.h"

#include <spdlog/spdlog.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const bool quiet = [] {
        spdlog::set_level(spdlog::level::off);
        return true;
    }();
    (void)quiet;
    FuzzFile file(data, size);
    try {
        const pyramid::LoadedModel model = pyramid::load_model_files(file.path());
        if (model.vocab) {
            const pyramid::Tokenizer tok = pyramid::Tokenizer::from_embedded_vocab(*model.vocab);
            const auto ids = tok.encode("Hello world \xF0\x9F\x98\x80");
            (void)tok.decode(ids);
        }
    } catch (const pyramid::Error&) {
    }
    return 0;
}
