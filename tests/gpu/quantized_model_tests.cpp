// The kquants synthetic LLaMA files (shared/models/kquants: Q4_K_M, and 13 types mixed) run
// with their quantized matrices kept as blocks on the device, through a prefill (the tile GEMM
// path), decode steps and a batch of three (the matvec path), against the CPU backend's exact
// path (the float32 products of the dequantized weights), with the same tolerances. In fp16 the
// matvecs round the activations to int8, which puts these logits about 1e-2 from the exact ones
// (7e-4 with float activations), as the CPU's own int8 path is (its rounding of other inputs
// adds to that, so the exact path is the closer reference). The device weights of the Q4_K_M
// file take under 40% of fp16.
#include "quantized_model_tests.h"

#include <filesystem>

#include "backend/cpu_backend.h"
#include "cuda_backend.h"
#include "generate/inference_session.h"
#include "generate/sampler.h"
#include "model/model_loader.h"
#include "model_checks.h"

using namespace pyramid;
using namespace pyramid::gpu_test;
using cuda::Precision;

namespace {

// Bytes the weights would take converted to fp16 (norms float32), as before quantized storage.
size_t fp16_bytes(const ModelWeights& w)
{
    size_t total = 0;
    const auto add = [&](const WeightView& v, size_t element) { total += size_t(v.elements()) * element; };
    add(w.token_embedding, 2);
    if (w.output.data != w.token_embedding.data)
        add(w.output, 2);
    add(w.output_norm, 4);
    for (const LayerWeights& l : w.layers) {
        for (const WeightView* m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
            add(*m, 2);
        add(l.attn_norm, 4);
        add(l.ffn_norm, 4);
    }
    return total;
}

void quantized_models_match_cpu()
{
    for (const char* file : {"models/kquants/synthetic-llama-q4_k_m.gguf", "models/kquants/synthetic-llama-mixed.gguf"}) {
        const LoadedModel model = load_model_files(require_shared(file));
        const ModelWeights& w = model.weights;
        const std::string name = std::filesystem::path(file).stem().string();
        {
            const cuda::DeviceWeights stored(w, Precision::Fp16);
            const double ratio = double(stored.bytes()) / double(fp16_bytes(w));
            std::printf("  %s: device weights %zu bytes, %.3f of fp16 (%zu)\n", name.c_str(), stored.bytes(), ratio,
                        fp16_bytes(w));
            GPU_CHECK(stored.bytes() == cuda::DeviceWeights::bytes_needed(w, Precision::Fp16), name);
            GPU_CHECK(stored.token_embedding().quantized && stored.output().quantized, name + ": quantized in place");
            if (name == "synthetic-llama-q4_k_m")
                GPU_CHECK(ratio < 0.4, name + ": device weights are " + std::to_string(ratio) + " of fp16");
        }
        CpuBackend cpu_backend(w, KvPrecision::F32, {cpu::best_kernel_config().isa, cpu::QuantizedDot::Exact});
        std::vector<int32_t> prompt;  // spread over the vocabulary, away from the special tokens
        for (int i = 0; i < 40; ++i)
            prompt.push_back(3 + (i * 7919) % (w.config.n_vocab - 3));
        for (Precision p : {Precision::Fp32, Precision::Fp16}) {
            cuda::CudaBackend backend(w, {p});
            const std::string what = name + " " + cuda::precision_name(p);
            InferenceSession session(backend, CompressionConfig::full_cache());
            InferenceSession reference(cpu_backend, CompressionConfig::full_cache());
            std::vector<float> actual = session.prefill(prompt), expected = reference.prefill(prompt);
            check_logits(what + " prefill", actual, expected, tolerance(p));
            for (int step = 0; step < 4; ++step) {
                const int32_t token = Sampler::argmax(expected);
                actual = session.decode(token);
                expected = reference.decode(token);
                check_logits(what + " decode step " + std::to_string(step), actual, expected, tolerance(p));
            }
            // extend by 5 rows and a batch of three sequences: the matvec path with n > 1.
            const std::vector<int32_t> more(prompt.begin() + 10, prompt.begin() + 15);
            check_logits(what + " extend 5", session.extend(more), reference.extend(more), tolerance(p));
            InferenceSession b1(backend, CompressionConfig::full_cache()), b2(backend, CompressionConfig::full_cache());
            InferenceSession r1(cpu_backend, CompressionConfig::full_cache()),
                r2(cpu_backend, CompressionConfig::full_cache());
            const std::vector<int32_t> short_prompt(prompt.begin(), prompt.begin() + 7);
            b1.prefill(short_prompt);
            r1.prefill(short_prompt);
            b2.prefill(more);
            r2.prefill(more);
            std::vector<InferenceSession*> gpu_batch{&session, &b1, &b2}, cpu_batch{&reference, &r1, &r2};
            const std::vector<int32_t> next{5, 17, 29};
            const auto got = InferenceSession::decode_batch(gpu_batch, next);
            const auto want = InferenceSession::decode_batch(cpu_batch, next);
            for (size_t i = 0; i < got.size(); ++i)
                check_logits(what + " batch of 3, sequence " + std::to_string(i), got[i], want[i], tolerance(p));
        }
    }
}

} // namespace

std::vector<TestCase> quantized_model_tests()
{
    return {{"quantized_models_match_cpu", quantized_models_match_cpu}};
}
