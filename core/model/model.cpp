#include "model/model.h"

#include "util/error.h"

namespace pyramid {

Tokenizer load_tokenizer(const std::filesystem::path& path, const LoadedModel& files)
{
    if (!files.vocab && files.tokenizer_model.empty())
        throw Error(path.string() + ": no tokenizer (neither an embedded vocabulary nor a tokenizer.model)");
    Tokenizer tokenizer = files.vocab ? Tokenizer::from_embedded_vocab(*files.vocab)
                                      : Tokenizer::from_model_file(files.tokenizer_model);
    // Embeddings may be padded past the vocabulary; the reverse would index past the table.
    if (tokenizer.vocab_size() > files.weights.config.n_vocab)
        throw Error(path.string() + ": the tokenizer has " + std::to_string(tokenizer.vocab_size()) +
                    " tokens but the model's embedding has " + std::to_string(files.weights.config.n_vocab) +
                    " rows");
    return tokenizer;
}

Model::Model(std::filesystem::path path, LoadedModel files, Tokenizer tokenizer)
    : path_(std::move(path)), files_(std::move(files)), tokenizer_(std::move(tokenizer))
{
}

std::shared_ptr<Model> Model::open(const std::filesystem::path& path, const BackendOptions& backend,
                                   const std::function<void(double)>& progress)
{
    // Where a GPU may take the model, its upload is the second half of the load's progress.
    const double reading_share = backend.device == BackendPreference::Cpu ? 1.0 : 0.5;
    const auto report = [&](double from, double share) {
        return [&progress, from, share](double fraction) {
            if (progress)
                progress(from + share * fraction);
        };
    };
    LoadedModel files = load_model_files(path, report(0.0, reading_share));
    Tokenizer tokenizer = load_tokenizer(path, files);
    files.vocab.reset();  // the tokenizer holds its own copy (LLaMA-2's 32000 pieces: about 1.3 MB)
    std::shared_ptr<Model> model(new Model(path, std::move(files), std::move(tokenizer)));
    // The backend keeps a reference to the weights, which now have their final address.
    BackendChoice choice = choose_backend(model->files_.weights, backend, report(reading_share, 1.0 - reading_share));
    model->backend_ = std::move(choice.backend);
    model->backend_note_ = std::move(choice.note);
    return model;
}

size_t Model::weight_bytes() const
{
    size_t total = 0;
    for (const WeightView* v : stored_views(files_.weights))
        total += v->bytes();
    return total;
}

} // namespace pyramid
