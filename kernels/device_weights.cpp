#include "device_weights.h"

#include <algorithm>
#include <functional>

#include "backend/device_weight_layout.h"
#include "block_upload.h"
#include "cuda_check.h"
#include "dequantize_ops.h"
#include "model/synthetic_value.h"
#include "synthetic_ops.h"
#include "util/float16.h"

namespace pyramid::cuda {
namespace {

constexpr size_t kAlignment = 256;     // cuBLAS and vector loads like aligned matrices
constexpr size_t kStagingBytes = 32u << 20;  // host conversion buffer per chunk of rows

size_t aligned(size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

// Visits every tensor in upload order: f(view, element precision, tensor number of
// model/synthetic_value.h).
void for_each_tensor(const ModelWeights& w, Precision precision,
                     const std::function<void(const WeightView&, Precision, uint32_t)>& f)
{
    f(w.token_embedding, precision, synthetic::kTokenEmbedding);
    if (!w.config.tied_output)  // the loaders set it whenever output is the embedding
        f(w.output, precision, synthetic::kOutput);
    f(w.output_norm, Precision::Fp32, synthetic::kOutputNorm);
    for (int layer = 0; layer < static_cast<int>(w.layers.size()); ++layer) {
        const LayerWeights& l = w.layers[static_cast<size_t>(layer)];
        int k = 0;  // LayerWeights' field order
        for (const WeightView* v : {&l.attn_norm, &l.wq, &l.wk, &l.wv, &l.wo, &l.ffn_norm, &l.w_gate, &l.w_up, &l.w_down}) {
            const uint32_t tensor = synthetic::layer_tensor(layer, k++);
            f(*v, synthetic::is_norm_tensor(tensor) ? Precision::Fp32 : precision, tensor);
        }
    }
}

// Whether a tensor goes up as its raw blocks: a quantized matrix with data (generated weights
// are float types; norm vectors are always made float32).
bool keeps_blocks(const WeightView& v, uint32_t tensor)
{
    return v.data && !synthetic::is_norm_tensor(tensor) && stays_quantized(v.type);
}

size_t tensor_bytes(const WeightView& v, Precision p, uint32_t tensor)
{
    if (keeps_blocks(v, tensor))
        return aligned(device_matrix_bytes(v.type, v.elements(), element_bytes(p)));
    return aligned(static_cast<size_t>(v.rows) * static_cast<size_t>(v.cols) * element_bytes(p));
}

// Decodes `view` a chunk of rows at a time into `staging` (rows in parallel) and copies each
// chunk to `device`.
void upload(const WeightView& view, Precision p, std::byte* device, std::vector<std::byte>& staging)
{
    if (!view.data)
        throw Error("weight " + view.name + " has no data");
    const auto& traits = tensor_type_traits(view.type);
    const int64_t cols = view.cols;
    const size_t row_out = static_cast<size_t>(cols) * element_bytes(p);
    const int64_t chunk_rows = std::max<int64_t>(1, static_cast<int64_t>(kStagingBytes / std::max<size_t>(row_out, 1)));
    staging.resize(static_cast<size_t>(std::min(chunk_rows, view.rows)) * row_out);
    for (int64_t r0 = 0; r0 < view.rows; r0 += chunk_rows) {
        const int64_t r1 = std::min(view.rows, r0 + chunk_rows);
#pragma omp parallel
        {
            std::vector<float> row(static_cast<size_t>(cols));
#pragma omp for schedule(static)
            for (int64_t r = r0; r < r1; ++r) {
                traits.to_float(view.row(r), row.data(), cols);
                std::byte* dst = staging.data() + static_cast<size_t>(r - r0) * row_out;
                if (p == Precision::Fp32) {
                    std::copy_n(reinterpret_cast<const std::byte*>(row.data()), row_out, dst);
                } else {
                    auto* half = reinterpret_cast<uint16_t*>(dst);
                    for (int64_t c = 0; c < cols; ++c)
                        half[c] = fp32_to_fp16(row[static_cast<size_t>(c)]);
                }
            }
        }
        check(cudaMemcpy(device + static_cast<size_t>(r0) * row_out, staging.data(),
                         static_cast<size_t>(r1 - r0) * row_out, cudaMemcpyHostToDevice),
              ("upload of " + view.name).c_str());
    }
}

// Makes a generated tensor on the device (model/synthetic_weights.h): the values the host
// generator would have stored, converted as upload() converts them.
void generate(const WeightView& view, Precision p, uint32_t tensor, const SyntheticSource& source, std::byte* device)
{
    if (synthetic::is_norm_tensor(tensor)) {  // float32 ones, small
        const std::vector<float> ones(static_cast<size_t>(view.cols), synthetic::kNormValue);
        check(cudaMemcpy(device, ones.data(), ones.size() * sizeof(float), cudaMemcpyHostToDevice),
              ("generation of " + view.name).c_str());
        return;
    }
    fill_synthetic(device, p, view.elements(), source.matrix_type, synthetic::tensor_key(source.seed, tensor),
                   synthetic::matrix_scale(view.cols), nullptr);
}

} // namespace

size_t DeviceWeights::bytes_needed(const ModelWeights& weights, Precision precision)
{
    size_t total = 0;
    for_each_tensor(weights, precision,
                    [&](const WeightView& v, Precision p, uint32_t tensor) { total += tensor_bytes(v, p, tensor); });
    return total;
}

DeviceWeights::DeviceWeights(const ModelWeights& weights, Precision precision,
                             const std::function<void(double)>& progress)
    : arena_(bytes_needed(weights, precision), std::string("the model's weights (") + precision_name(precision) + ")")
{
    std::vector<std::byte> staging;
    struct Placed {
        const void* data;
        std::optional<TensorType> quantized;
    };
    std::vector<Placed> placed;
    auto* next = arena_.as<std::byte>();
    for_each_tensor(weights, precision, [&](const WeightView& v, Precision p, uint32_t tensor) {
        const bool blocks = keeps_blocks(v, tensor);
        if (blocks)  // straight from the (memory-mapped) file, in the device's block layout
            upload_blocks(v.type, v.data, v.elements() / tensor_type_traits(v.type).block_elems, next, v.name);
        else if (!v.data && weights.synthetic)
            generate(v, p, tensor, *weights.synthetic, next);
        else
            upload(v, p, next, staging);
        placed.push_back({next, blocks ? std::optional<TensorType>(v.type) : std::nullopt});
        next += tensor_bytes(v, p, tensor);
        if (progress)
            progress(static_cast<double>(next - arena_.as<std::byte>()) / static_cast<double>(arena_.bytes()));
    });

    // Same order as for_each_tensor.
    size_t i = 0;
    const auto matrix = [&](const WeightView& v) {
        const Placed& at = placed[i++];
        return DeviceMatrix{at.data, v.rows, v.cols, precision, at.quantized};
    };
    const auto vector = [&]() { return static_cast<const float*>(placed[i++].data); };
    embedding_ = matrix(weights.token_embedding);
    output_ = weights.config.tied_output ? embedding_ : matrix(weights.output);
    output_norm_ = vector();
    for (const LayerWeights& l : weights.layers) {
        DeviceLayer d;
        d.attn_norm = vector();
        d.wq = matrix(l.wq);
        d.wk = matrix(l.wk);
        d.wv = matrix(l.wv);
        d.wo = matrix(l.wo);
        d.ffn_norm = vector();
        d.w_gate = matrix(l.w_gate);
        d.w_up = matrix(l.w_up);
        d.w_down = matrix(l.w_down);
        layers_.push_back(d);
    }
}

std::vector<const DeviceMatrix*> DeviceWeights::projected_matrices() const
{
    std::vector<const DeviceMatrix*> out{&output_};
    for (const DeviceLayer& l : layers_)
        for (const DeviceMatrix* m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
            out.push_back(m);
    return out;
}

} // namespace pyramid::cuda
