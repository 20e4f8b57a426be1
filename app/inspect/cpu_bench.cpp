// pyramid-cpu-bench: prompt and decode speed on the CPU backend of a model as stored
// (quantized weights used in place) against its float32 copy (the same weights dequantized
// with to_float), measured side by side in one process: the two alternate within each
// repeat, so a busy machine slows both alike. Prints a Markdown table on stdout.
//
// The kernels are those cpu::matmul picks (PYRAMID_CPU_KERNELS=generic forces the portable
// ones). Exit codes as pyramid-cli: 0 done, 2 bad options, 3 the model cannot be loaded.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "backend/backend_environment.h"
#include "backend/cpu_backend.h"
#include "backend/dequantized_weights.h"
#include "backend/kernel_config.h"
#include "command_line.h"
#include "generate/inference_session.h"
#include "generate/sampler.h"
#include "memory_estimate.h"
#include "model/model.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/measurement.h"

namespace {

using Clock = std::chrono::steady_clock;
using pyramid::median;

struct Speed {
    double prefill = 0;  // prompt tokens per second
    double decode = 0;   // generated tokens per second
};

// One greedy run: the prompt, then `steps` tokens each fed back.
Speed run_once(pyramid::Backend& backend, const std::vector<int32_t>& prompt, int steps)
{
    pyramid::InferenceSession session(backend, pyramid::CompressionConfig::full_cache());
    const auto t0 = Clock::now();
    std::vector<float> logits = session.prefill(prompt);
    const auto t1 = Clock::now();
    for (int i = 0; i < steps; ++i)
        logits = session.decode(pyramid::Sampler::argmax(logits));
    const auto t2 = Clock::now();
    const auto seconds = [](auto d) { return std::chrono::duration<double>(d).count(); };
    return {static_cast<double>(prompt.size()) / seconds(t1 - t0), steps / seconds(t2 - t1)};
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app{"Measure CPU prompt and decode speed of a model as stored against its float32 copy.",
                 "pyramid-cpu-bench"};
    std::string model_path;
    int prompt_tokens = 32, decode_tokens = 128, repeats = 5;
    app.add_option("model", model_path, "GGUF file or Hugging Face folder")->required();
    app.add_option("--prompt-tokens", prompt_tokens, "prompt length")->check(pyramid::whole_number(1, 1 << 16))->capture_default_str();
    app.add_option("--decode-tokens", decode_tokens, "tokens generated after the prompt")
        ->check(pyramid::whole_number(1, 1 << 16))
        ->capture_default_str();
    app.add_option("--repeats", repeats, "timed runs of each variant (the median is reported)")
        ->check(pyramid::whole_number(1, 1000))
        ->capture_default_str();
    if (const auto status = pyramid::parse_command_line(app, argc, argv, "pyramid-cpu-bench"))
        return *status;
    pyramid::init_logging({false, false, "pyramid-cpu-bench"});

    // Both variants run the kernels and threads the environment chooses (backend_environment.h).
    pyramid::BackendOptions kernels_options = pyramid::with_environment(pyramid::BackendOptions(pyramid::BackendPreference::Cpu));
    std::shared_ptr<pyramid::Model> model;
    pyramid::ModelWeights f32;
    std::vector<int32_t> prompt;
    try {
        model = pyramid::Model::open(model_path, kernels_options);
        if (prompt_tokens + decode_tokens > model->config().context_length)
            throw pyramid::Error(fmt::format("{} prompt + {} decode tokens exceed the model's context of {}",
                                             prompt_tokens, decode_tokens, model->config().context_length));
        f32 = pyramid::dequantized_copy(model->files().weights);
        const auto text = model->tokenizer().encode(
            "Once upon a time, in a small town by the sea, there lived a curious girl who loved to read.");
        if (model->tokenizer().bos_id() >= 0)
            prompt.push_back(model->tokenizer().bos_id());
        for (size_t i = 0; prompt.size() < static_cast<size_t>(prompt_tokens); ++i)
            prompt.push_back(text[i % text.size()]);
    } catch (const pyramid::Error& e) {
        fmt::print(stderr, "pyramid-cpu-bench: {}\n", e.what());
        return 3;
    }
    pyramid::CpuBackend f32_backend(f32, pyramid::KvPrecision::F32, kernels_options.cpu_kernels,
                                    pyramid::CpuBackend::kSliceRows, {}, kernels_options.cpu_threads);

    struct Variant {
        std::string label;
        pyramid::Backend* backend;
        size_t weight_bytes;
        std::vector<double> prefill, decode;
    };
    std::vector<Variant> variants{
        {"as stored", &model->backend(), pyramid::inspect::weight_memory(model->files().weights).cpu_bytes, {}, {}},
        {"float32 copy", &f32_backend, pyramid::inspect::weight_memory(f32).cpu_bytes, {}, {}}};

    for (Variant& v : variants)  // warm-up: page the weights in, size every buffer
        run_once(*v.backend, prompt, std::min(decode_tokens, 8));
    for (int r = 0; r < repeats; ++r)
        for (int k = 0; k < 2; ++k) {
            Variant& v = variants[static_cast<size_t>((r + k) % 2)];  // alternate which goes first
            const Speed s = run_once(*v.backend, prompt, decode_tokens);
            v.prefill.push_back(s.prefill);
            v.decode.push_back(s.decode);
        }

    fmt::print("Model: {}\n", model_path);
    const pyramid::cpu::KernelConfig kernels = kernels_options.cpu_kernels;
    // The backend's own description names its thread count ("2 threads, f16 KV cache").
    fmt::print("Machine: {}, {}; kernels: {}, {} quantized dot; date: {}\n", pyramid::cpu_model_name(),
               model->backend().info().device, pyramid::cpu::kernel_isa_name(kernels.isa),
               pyramid::cpu::quantized_dot_name(kernels.quantized_dot), pyramid::local_date());
    fmt::print("Prompt {} tokens, then {} greedy decode steps, full KV cache; median of {} runs (min-max).\n\n",
               prompt.size(), decode_tokens, repeats);
    fmt::print("| weights | weight memory | prompt tokens/s | decode tokens/s |\n|---|---:|---:|---:|\n");
    for (const Variant& v : variants) {
        const auto [pmin, pmax] = std::minmax_element(v.prefill.begin(), v.prefill.end());
        const auto [dmin, dmax] = std::minmax_element(v.decode.begin(), v.decode.end());
        fmt::print("| {} | {:.1f} MiB | {:.0f} ({:.0f}-{:.0f}) | {:.1f} ({:.1f}-{:.1f}) |\n", v.label,
                   v.weight_bytes / (1024.0 * 1024.0), median(v.prefill), *pmin, *pmax, median(v.decode), *dmin, *dmax);
    }
    fmt::print("\nDecode speed-up of the stored weights over float32: {:.2f}x\n",
               median(variants[0].decode) / median(variants[1].decode));
    return 0;
}
