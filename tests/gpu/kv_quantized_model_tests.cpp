// The CUDA backend with its KV cache in q8 and q4 (CudaBackendOptions::kv_types), part of
// test_gpu_model. stories260K's heads have 8 values, fewer than one 32-value block, so a
// generated model stands in for it: 4 heads of 32 values over 2 KV heads (grouped), 3 layers.
// Every run goes through a PyramidInfer prompt (compaction by probe scores from the stored
// keys), a context shift (make_room: quantized keys rotated and quantized again) and decode
// steps.
//
// - quantized_kv_cache_matches_cpu: in fp32 against the CPU backend storing its cache in the
//   same types: the same positions kept in every layer, the same bytes counted, and logits
//   within 1e-3 relative. Both quantize alike and read the stored entries exactly (the kernel
//   tests hold them to float summation order), but the keys and values they quantize differ in
//   their last bits (the GPU's products sum in another order), so now and then a value lands
//   on the other side of a rounding boundary and takes the neighbouring code: such steps (1/127
//   of a block's largest value) put the q8/q8 logits 1.2e-4 apart after the prompt, 1.6e-4 at
//   most; the other types stayed within 1e-6.
// - quantized_kv_cache_near_f16: in fp16, against the same backend with its fp16 cache (what
//   storing fewer bits costs; the kept entries may differ): q8 logits within 2e-2 relative
//   (the fp16 tolerance of model_checks.h; measured 1.2e-2, K q8 alone 2.1e-3, V q8 alone
//   1.1e-2), q4 within 2.5e-1 (measured 0.17; half a q4 step is a fourteenth of a block's
//   largest value).
// - quantized_kv_cache_refusals: a model whose heads are not whole blocks (stories260K), and
//   an fp16 cache under fp32, are refused at construction with the reason.
#include "kv_quantized_model_tests.h"

#include "backend/cpu_backend.h"
#include "cuda_backend.h"
#include "generate/inference_session.h"
#include "generate/sampler.h"
#include "kv/compression_presets.h"
#include "model/synthetic_weights.h"
#include "model_checks.h"
#include "stories_model.h"

using namespace pyramid;
using namespace pyramid::gpu_test;
using cuda::Precision;

namespace {

ModelConfig grouped_config()
{
    return ModelConfig{.name = "synthetic", .n_vocab = 97, .dim = 128, .ffn_dim = 192, .n_layers = 3, .n_heads = 4,
                       .n_kv_heads = 2, .head_dim = 32, .context_length = 256};
}

const ModelWeights& grouped_weights()
{
    static const ModelWeights weights = generate_model_weights(grouped_config(), TensorType::F32, 20261128, true);
    return weights;
}

std::vector<int32_t> prompt_tokens()
{
    std::vector<int32_t> prompt(120);
    std::mt19937 rng(7);
    for (int32_t& t : prompt)
        t = int32_t(rng() % 97);
    return prompt;
}

// The largest relative logit error of `tested` against `reference` over a PyramidInfer prompt,
// a context shift and 6 decode steps (tokens: the reference's argmax); `same_entries`: also
// the kept positions of every layer.
double run_both(Backend& tested, Backend& reference, const std::string& what, bool same_entries)
{
    const CompressionConfig pyramid = compression_preset("reference-7b");
    InferenceSession a(tested, pyramid), b(reference, pyramid);
    const std::vector<int32_t> prompt = prompt_tokens();
    std::vector<float> expected = b.prefill(prompt), actual = a.prefill(prompt);
    const double prefill = relative_error(actual, expected);
    double worst = prefill;
    const int room = b.context_length() - 60;  // more than the prompt leaves: entries go, keys rotate
    const int freed = b.make_room(room);
    GPU_CHECK(freed > 0 && a.make_room(room) == freed, what + ": positions freed");
    for (int step = 0; step < 6; ++step) {
        const int32_t next = Sampler::argmax(expected);
        expected = b.decode(next);
        actual = a.decode(next);
        worst = std::max(worst, relative_error(actual, expected));
    }
    size_t entries = 0;
    for (int l = 0; l < a.cache().n_layers(); ++l) {
        const auto pa = a.cache().positions(l), pb = b.cache().positions(l);
        entries += pa.size();
        if (same_entries)
            GPU_CHECK(std::vector<int32_t>(pa.begin(), pa.end()) == std::vector<int32_t>(pb.begin(), pb.end()),
                      what + ": positions of layer " + std::to_string(l));
    }
    GPU_CHECK(entries < size_t(3 * 120), what + ": PyramidInfer dropped entries");
    GPU_CHECK(a.cache().bytes() == entries * tested.kv_entry_bytes(), what + ": cache bytes");
    std::printf("  %s: relative logit error %.3g after the prompt, largest %.3g\n", what.c_str(), prefill, worst);
    return worst;
}

const KvTypes kTypes[] = {KvTypes{KvPrecision::Q8}, KvTypes{KvPrecision::Q4}, KvTypes{KvPrecision::Q8, KvPrecision::F32},
                          KvTypes{KvPrecision::F32, KvPrecision::Q4}};

void quantized_kv_cache_matches_cpu()
{
    const ModelConfig& c = grouped_config();
    for (const KvTypes& types : kTypes) {
        cuda::CudaBackendOptions options;
        options.precision = Precision::Fp32;
        options.kv_types = types;
        cuda::CudaBackend gpu(grouped_weights(), options);
        CpuBackend cpu(grouped_weights(), types);
        const std::string what = "fp32, KV " + kv_types_name(types) + " vs the CPU";
        GPU_CHECK(gpu.kv_entry_bytes() == kv_entry_bytes(types, c.n_kv_heads, c.head_dim), what + ": entry bytes");
        GPU_CHECK(gpu.kv_entry_bytes() == cpu.kv_entry_bytes(), what + ": entry bytes as the CPU's");
        GPU_CHECK(gpu.info().device.find("KV " + kv_types_name(types)) != std::string::npos,
                  what + ": named in " + gpu.info().device);
        const double worst = run_both(gpu, cpu, what, true);
        GPU_CHECK(worst <= 1e-3, what + ": " + std::to_string(worst));
    }
}

void quantized_kv_cache_near_f16()
{
    cuda::CudaBackendOptions f16;
    f16.precision = Precision::Fp16;
    cuda::CudaBackend reference(grouped_weights(), f16);
    struct Case {
        KvTypes types;
        double tolerance;
    };
    for (const Case& k : {Case{KvPrecision::Q8, 2e-2}, Case{KvPrecision::Q4, 2.5e-1},
                          Case{{KvPrecision::Q8, KvPrecision::F16}, 2e-2}, Case{{KvPrecision::F16, KvPrecision::Q8}, 2e-2}}) {
        cuda::CudaBackendOptions options = f16;
        options.kv_types = k.types;
        cuda::CudaBackend gpu(grouped_weights(), options);
        const std::string what = "fp16, KV " + kv_types_name(k.types) + " vs KV f16";
        // A quantized cache may keep other entries than the fp16 one (its probe scores differ).
        const double worst = run_both(gpu, reference, what, false);
        GPU_CHECK(worst > 0.0 && worst <= k.tolerance, what + ": " + std::to_string(worst));
        GPU_CHECK(gpu.kv_pool().block_bytes() == 16 * gpu.kv_entry_bytes(), what + ": pool blocks of 16 entries");
    }
}

void quantized_kv_cache_refusals()
{
    const auto refused = [](const ModelWeights& w, Precision p, const KvTypes& types, const std::string& reason) {
        cuda::CudaBackendOptions options;
        options.precision = p;
        options.kv_types = types;
        try {
            cuda::CudaBackend backend(w, options);
        } catch (const Error& e) {
            GPU_CHECK(std::string(e.what()).find(reason) != std::string::npos, e.what());
            return;
        }
        fail("a CUDA backend with KV " + kv_types_name(types) + " was made (expected: " + reason + ")");
    };
    refused(weights(), Precision::Fp16, KvPrecision::Q8, "multiple of 32");  // stories260K: heads of 8
    refused(weights(), Precision::Fp16, {KvPrecision::F16, KvPrecision::Q4}, "multiple of 32");
    refused(grouped_weights(), Precision::Fp32, KvPrecision::F16, "its own precision, q8 or q4");
}

} // namespace

std::vector<TestCase> kv_quantized_model_tests()
{
    return {
        {"quantized_kv_cache_matches_cpu", quantized_kv_cache_matches_cpu},
        {"quantized_kv_cache_near_f16", quantized_kv_cache_near_f16},
        {"quantized_kv_cache_refusals", quantized_kv_cache_refusals},
    };
}
