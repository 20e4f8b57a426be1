// pyramid-inspect: what a model file or folder holds and how much memory it needs to run,
// without running it. The report goes to stdout, errors to stderr.
//
// Exit codes, as pyramid-cli: 0 done, 2 bad options, 3 the model cannot be read or loaded.
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "command_line.h"
#include "dequant_digest.h"
#include "engine_options.h"
#include "inspect_report.h"
#include "kv/compression_config.h"
#include "kv/compression_presets.h"
#include "memory_estimate.h"
#include "model/model.h"
#include "model/model_loader.h"
#include "model_contents.h"
#include "util/error.h"
#include "util/text_input.h"
#include "util/logging.h"

namespace {

constexpr int kBadOptions = 2;
constexpr int kBadModel = 3;

int fail(int code, const std::string& message)
{
    fmt::print(stderr, "pyramid-inspect: {}\n", message);
    return code;
}

// One line per tensor: name, type, SHA-256 of its float32 dequantization ("-" for a tensor
// with no float decoding, such as a safetensors integer buffer).
void print_digests(const pyramid::inspect::ModelContents& contents)
{
    for (const auto& t : contents.tensors)
        fmt::print("{} {} {}\n", t.name, t.type_name, t.type ? pyramid::inspect::dequant_sha256(t) : "-");
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app{"Show what a LLaMA model file or folder holds (format, hyperparameters, tokenizer, tensors, "
                 "storage by type) and estimate the memory it needs with a full and a PyramidInfer KV cache.",
                 "pyramid-inspect"};
    std::string model_path;
    int context = 0;
    std::string preset = "reference-7b";
    bool digests = false;
    pyramid::KvTypeOption kv_types(pyramid::KvPrecision::F16);
    std::vector<double> gpu_memory{6, 8, 12, 16, 24};
    app.add_option("model", model_path, "GGUF file or Hugging Face folder")->required();
    app.add_option("--context", context, "prompt length in tokens for the memory estimate (default: the model's "
                                         "context length)")
        ->check(CLI::PositiveNumber);
    std::vector<std::string> pyramid_presets;  // the estimate plans PyramidInfer's lengths
    for (const pyramid::CompressionPreset& p : pyramid::compression_presets())
        if (p.config.policy == pyramid::CompressionPolicyKind::Pyramid)
            pyramid_presets.push_back(p.name);
    app.add_option("--preset", preset, "PyramidInfer preset the estimate compares with the full cache")
        ->check(CLI::IsMember(pyramid_presets))
        ->capture_default_str();
    app.add_option("--gpu-memory", gpu_memory,
                   "GPU memory sizes in GiB (left for the model) to find the longest prompt for, e.g. 6,8,24")
        ->delimiter(',')
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    kv_types.add_to(app, "how the KV cache would be stored (a GPU stores f32 as f16)");
    bool tokenize = false;
    app.add_flag("--tokenize", tokenize,
                 "read UTF-8 text on standard input and print its token ids as one JSON array (no chat "
                 "template, no BOS, control tokens' spellings taken as text), to compare with another tokenizer");
    app.add_flag("--dequant-sha256", digests,
                 "print only 'name type sha256' per tensor: the SHA-256 of its float32 dequantization "
                 "(little-endian, storage order), as ggml's to_float produces it");
    if (const auto status = pyramid::parse_command_line(app, argc, argv, "pyramid-inspect"))
        return *status;
    pyramid::init_logging({false, false, "pyramid-inspect"});

    if (tokenize) {
        try {
            const pyramid::Tokenizer tok = pyramid::load_tokenizer(model_path, pyramid::load_model_files(model_path));
            const std::string text = pyramid::read_text_input(std::cin, "standard input");
            fmt::print("[{}]\n", fmt::join(tok.encode(text), ", "));
            return 0;
        } catch (const pyramid::Error& e) {
            return fail(kBadModel, e.what());
        }
    }

    pyramid::inspect::ModelContents contents;
    try {
        contents = pyramid::inspect::read_model_contents(model_path);
        if (digests) {
            print_digests(contents);
            return 0;
        }
    } catch (const pyramid::Error& e) {
        return fail(kBadModel, e.what());
    }

    // The engine's own checks first: a model it refuses gets what could be read, then the
    // refusal, before any estimate sized by its (possibly absurd) hyperparameters.
    std::optional<pyramid::LoadedModel> loaded;
    try {
        loaded = pyramid::load_model_files(model_path);
        (void)pyramid::load_tokenizer(model_path, *loaded);
    } catch (const pyramid::Error& e) {
        pyramid::inspect::print_summary(stdout, contents);
        std::fflush(stdout);
        return fail(kBadModel, "the engine cannot load this model: " + std::string(e.what()));
    }

    pyramid::inspect::KvEstimate kv;
    try {
        kv = pyramid::inspect::estimate_kv(contents.config, pyramid::compression_preset(preset).pyramid,
                                           context > 0 ? context : contents.config.context_length, kv_types.types());
    } catch (const pyramid::Error& e) {
        return fail(kBadOptions, std::string(e.what()));
    }

    pyramid::inspect::print_summary(stdout, contents);
    try {
        // The weights exactly as a backend gets them.
        const pyramid::inspect::CudaScratch scratch =
            pyramid::inspect::estimate_cuda_scratch(loaded->weights, kv.prompt_tokens, kv.cuda_types,
                                                    pyramid::kChunkRowsStep);
        pyramid::inspect::print_memory_estimate(stdout, pyramid::inspect::weight_memory(loaded->weights), kv, scratch,
                                                preset);
        pyramid::inspect::print_gpu_fit(stdout, loaded->weights, pyramid::compression_preset(preset), preset,
                                        gpu_memory, pyramid::inspect::gpu_fit_kv_types(contents.config, kv.cpu_types));
    } catch (const pyramid::Error& e) {
        std::fflush(stdout);
        return fail(kBadModel, "the engine cannot load this model: " + std::string(e.what()));
    }
    return 0;
}
