#include "generated_model_file.h"

#include "model/gguf_writer.h"
#include "model/model_shapes.h"
#include "model/synthetic_weights.h"

namespace pyramid::bench {

uint64_t write_generated_model(const GeneratedModelFile& what, const std::filesystem::path& path)
{
    const ModelShape& shape = find_model_shape(what.shape);
    // Opened first: a missing or malformed vocabulary file is found before anything is generated.
    const GgufFile vocabulary = GgufFile::open(what.vocabulary);
    const ModelWeights weights = generate_model_weights(shape.config, what.storage, what.seed, true);
    GgufWriteOptions options;
    options.file_type = what.storage.llama_file_type();
    return write_gguf_model(path, weights, vocabulary, options);
}

} // namespace pyramid::bench
