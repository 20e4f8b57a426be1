#include "model/synthetic_weights.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "model/synthetic_value.h"
#include "util/error.h"
#include "util/float16.h"

namespace pyramid {
namespace {

void check_config(const ModelConfig& c)
{
    const auto positive = [&](const char* field, int value) {
        if (value <= 0)
            throw Error(std::string("generated weights: config field ") + field + " must be positive, found " +
                        std::to_string(value));
    };
    positive("n_vocab", c.n_vocab);
    positive("dim", c.dim);
    positive("ffn_dim", c.ffn_dim);
    positive("n_layers", c.n_layers);
    positive("n_heads", c.n_heads);
    positive("n_kv_heads", c.n_kv_heads);
    positive("head_dim", c.head_dim);
}

// Writes `count` values of the tensor with this key, encoded by `encode`, rows in parallel.
template <typename Element, typename Encode>
void fill(void* out, int64_t count, uint64_t key, float scale, Encode encode)
{
    auto* dst = static_cast<Element*>(out);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < count; ++i)
        dst[i] = encode(synthetic::value(key, static_cast<uint64_t>(i), scale));
}

// fp32_to_fp16 for the finite values below 65504 that generation makes (|x| <= 1), without
// branches or a call: it takes generation of a 7B model from over half a minute to seconds
// here. Same bits as fp32_to_fp16 (the test compares whole tensors).
inline uint16_t generated_to_fp16(float x)
{
    const uint32_t bits = std::bit_cast<uint32_t>(x);
    const uint32_t sign = (bits >> 16) & 0x8000u;
    const uint32_t abs = bits & 0x7fffffffu;
    // Normal half: rebias the exponent and drop 13 mantissa bits, rounding to nearest even
    // (a carry out of the mantissa bumps the exponent, as it should).
    const uint32_t normal = (abs - (112u << 23) + 0xfffu + ((abs >> 13) & 1u)) >> 13;
    // Subnormal half (|x| < 2^-14): 0.5 + |x| lies on a grid of 2^-24, the subnormal step,
    // so the float addition does the rounding; its low mantissa bits are the half's.
    const uint32_t subnormal = std::bit_cast<uint32_t>(std::bit_cast<float>(abs) + 0.5f) - 0x3f000000u;
    return static_cast<uint16_t>(sign | (abs < 0x38800000u ? subnormal : normal));
}

// fp32_to_bf16 for values that are never NaN.
inline uint16_t generated_to_bf16(float x)
{
    const uint32_t bits = std::bit_cast<uint32_t>(x);
    return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

// matrix_type was checked: F32, F16 or BF16.
void fill_matrix(void* out, TensorType type, int64_t count, uint64_t key, float scale)
{
    if (type == TensorType::F32)
        fill<float>(out, count, key, scale, [](float x) { return x; });
    else if (type == TensorType::F16)
        fill<uint16_t>(out, count, key, scale, generated_to_fp16);
    else
        fill<uint16_t>(out, count, key, scale, generated_to_bf16);
}

// Random bits with every block's scale fields set to one finite value, chosen so the decoded
// elements have the RMS of the float generator's (uniform in [-scale, scale]: scale/sqrt(3)).
// Every element is linear in the scale fields, so measuring the RMS of a sample decoded with
// scales of 1 gives the factor.
void fill_blocks(std::byte* out, TensorType type, int64_t rows, int64_t cols, uint64_t key, float scale)
{
    const TensorTypeTraits& traits = tensor_type_traits(type);
    const size_t row_bytes = tensor_row_bytes(type, cols);
    const size_t words = rows * row_bytes / sizeof(uint64_t), tail = rows * row_bytes % sizeof(uint64_t);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < words; ++i) {
        const uint64_t bits = synthetic::mix64(key + synthetic::kGoldenGamma * (i + 1));
        std::memcpy(out + i * sizeof(uint64_t), &bits, sizeof bits);
    }
    const uint64_t last = synthetic::mix64(key ^ synthetic::kGoldenGamma);
    std::memcpy(out + words * sizeof(uint64_t), &last, tail);

    const size_t blocks = rows * row_bytes / traits.block_bytes;
    const auto set_scales = [&](uint16_t half) {
#pragma omp parallel for schedule(static)
        for (size_t b = 0; b < blocks; ++b)
            for (const int16_t offset : traits.scale_offsets)
                if (offset >= 0)
                    std::memcpy(out + b * traits.block_bytes + static_cast<size_t>(offset), &half, sizeof half);
    };
    set_scales(fp32_to_fp16(1.0f));
    const int64_t sample_rows = std::min<int64_t>(rows, 4);
    std::vector<float> sample(static_cast<size_t>(sample_rows * cols));
    traits.to_float(out, sample.data(), sample_rows * cols);
    double sum = 0;
    for (float v : sample)
        sum += static_cast<double>(v) * v;
    const double rms = std::sqrt(sum / static_cast<double>(sample.size()));
    set_scales(fp32_to_fp16(static_cast<float>(scale / std::sqrt(3.0) / std::max(rms, 1e-30))));
}

struct Planned {
    WeightView* view;
    uint32_t tensor;
    bool is_norm;
};

} // namespace

void fill_synthetic_matrix(std::byte* out, TensorType type, int64_t rows, int64_t cols, uint64_t key)
{
    if (is_block_quantized(type))
        fill_blocks(out, type, rows, cols, key, synthetic::matrix_scale(cols));
    else if (type == TensorType::F32 || type == TensorType::F16 || type == TensorType::BF16)
        fill_matrix(out, type, rows * cols, key, synthetic::matrix_scale(cols));
    else
        throw Error("generated weights: no generator for tensor type " + std::string(tensor_type_traits(type).name));
}

ModelWeights generate_model_weights(const ModelConfig& config, const SyntheticStorage& storage, uint64_t seed,
                                    bool on_host, const std::function<void(double)>& progress)
{
    check_config(config);
    const ModelConfig& c = config;

    ModelWeights w;
    w.config = c;
    w.synthetic = SyntheticSource{seed, storage.base};
    w.layers.resize(static_cast<size_t>(c.n_layers));

    std::vector<Planned> plan;
    const auto matrix = [&](WeightView& v, std::string name, int64_t rows, int64_t cols, uint32_t tensor) {
        const TensorType type = storage.type_of(tensor, c.n_layers);
        if (cols % tensor_type_traits(type).block_elems != 0)
            throw Error("generated weights: " + name + " has rows of " + std::to_string(cols) +
                        " elements, not a whole number of " + std::string(tensor_type_traits(type).name) +
                        " blocks (" + std::to_string(tensor_type_traits(type).block_elems) + " elements)");
        v = WeightView{std::move(name), type, rows, cols, nullptr};
        plan.push_back({&v, tensor, false});
    };
    const auto norm = [&](WeightView& v, std::string name, uint32_t tensor) {
        v = WeightView{std::move(name), TensorType::F32, 1, c.dim, nullptr};
        plan.push_back({&v, tensor, true});
    };
    const int q_width = c.n_heads * c.head_dim;
    matrix(w.token_embedding, "token_embd.weight", c.n_vocab, c.dim, synthetic::kTokenEmbedding);
    if (!c.tied_output)
        matrix(w.output, "output.weight", c.n_vocab, c.dim, synthetic::kOutput);
    norm(w.output_norm, "output_norm.weight", synthetic::kOutputNorm);
    for (int l = 0; l < c.n_layers; ++l) {
        LayerWeights& lw = w.layers[static_cast<size_t>(l)];
        const std::string blk = "blk." + std::to_string(l) + ".";
        const auto t = [l](int k) { return synthetic::layer_tensor(l, k); };
        norm(lw.attn_norm, blk + "attn_norm.weight", t(0));
        matrix(lw.wq, blk + "attn_q.weight", q_width, c.dim, t(1));
        matrix(lw.wk, blk + "attn_k.weight", c.kv_dim(), c.dim, t(2));
        matrix(lw.wv, blk + "attn_v.weight", c.kv_dim(), c.dim, t(3));
        matrix(lw.wo, blk + "attn_output.weight", c.dim, q_width, t(4));
        norm(lw.ffn_norm, blk + "ffn_norm.weight", t(5));
        matrix(lw.w_gate, blk + "ffn_gate.weight", c.ffn_dim, c.dim, t(6));
        matrix(lw.w_up, blk + "ffn_up.weight", c.ffn_dim, c.dim, t(7));
        matrix(lw.w_down, blk + "ffn_down.weight", c.dim, c.ffn_dim, t(8));
    }

    // Off the host, only quantized matrices are made here.
    std::erase_if(plan, [&](const Planned& p) { return !on_host && (p.is_norm || !is_block_quantized(p.view->type)); });
    size_t total = 0;
    for (const Planned& p : plan)
        total += p.view->bytes();
    size_t done = 0;
    for (const Planned& p : plan) {
        WeightView& v = *p.view;
        // Default-initialised: the fill writes every byte, zeroing first would double the work.
        std::shared_ptr<std::byte[]> buffer(new std::byte[v.bytes()]);
        const uint64_t key = synthetic::tensor_key(seed, p.tensor);
        if (p.is_norm)
            std::fill_n(reinterpret_cast<float*>(buffer.get()), v.elements(), synthetic::kNormValue);
        else
            fill_synthetic_matrix(buffer.get(), v.type, v.rows, v.cols, key);
        v.data = buffer.get();
        w.storage.push_back(std::move(buffer));
        done += v.bytes();
        if (progress)
            progress(static_cast<double>(done) / static_cast<double>(total));
    }
    if (plan.empty() && progress)
        progress(1.0);
    if (c.tied_output)  // the same view, as the loaders give a tied model
        w.output = w.token_embedding;
    return w;
}

} // namespace pyramid
