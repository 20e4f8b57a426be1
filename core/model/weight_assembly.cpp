#include "model/weight_assembly.h"

#include <algorithm>
#include <set>

#include <cmath>
#include <cstring>
#include <memory>

#include "model/finite_values.h"
#include "util/error.h"
#include "util/json_input.h"

namespace pyramid {
namespace {

std::string dims_text(const std::vector<int64_t>& dims)
{
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i)
        s += (i ? ", " : "") + std::to_string(dims[i]);
    return s + "]";
}

// Leading (outer) dimensions of 1 carry no meaning: [1, 64] and [64] are the same vector.
std::vector<int64_t> squeezed(std::vector<int64_t> dims)
{
    while (dims.size() > 1 && dims.front() == 1)
        dims.erase(dims.begin());
    return dims;
}

// Float32 rows must be 4-byte aligned and half/quantized blocks 2-byte aligned for backends
// to read them directly; only odd files (alignment 1 GGUF, unpadded safetensors) fail this.
size_t required_alignment(TensorType type) { return type == TensorType::F32 ? alignof(float) : 2; }

class Assembler {
public:
    Assembler(const TensorSource& source, ModelWeights& out) : source_(source), out_(out) {}

    std::optional<StoredTensor> find(WeightRole role, int layer)
    {
        auto t = source_.find(role, layer);
        if (t)
            used_.insert(t->name);
        return t;
    }

    StoredTensor require(WeightRole role, int layer)
    {
        auto t = find(role, layer);
        if (!t)
            throw Error(source_.file + ": missing tensor '" + source_.expected_name(role, layer) + "'");
        return *t;
    }

    // Throws for the tensors the file holds that nothing took.
    void check_all_used() const
    {
        std::vector<std::string> unused;
        for (const std::string& name : source_.stored_names)
            if (!used_.count(name) && !(source_.may_leave_unused && source_.may_leave_unused(name)))
                unused.push_back(name);
        if (unused.empty())
            return;
        std::string list;
        for (size_t i = 0; i < std::min<size_t>(unused.size(), 3); ++i)
            list += (i ? ", " : "") + json_excerpt(unused[i]);
        if (unused.size() > 3)
            list += " and " + std::to_string(unused.size() - 3) + " more";
        throw Error(source_.file + ": holds " + std::to_string(unused.size()) + " tensor" +
                    (unused.size() == 1 ? "" : "s") + " the model does not use (" + list +
                    "): more layers than its hyperparameters declare, or a feature this engine does not run");
    }

    WeightView matrix(const StoredTensor& t, int64_t rows, int64_t cols)
    {
        check_shape(t, {rows, cols}, " (rows, columns)");
        return view(t, rows, cols);
    }

    WeightView matrix(WeightRole role, int layer, int64_t rows, int64_t cols)
    {
        return matrix(require(role, layer), rows, cols);
    }

    // Norm weights are always handed out as float32, converted when stored otherwise.
    WeightView norm(WeightRole role, int layer, int64_t n)
    {
        const StoredTensor t = require(role, layer);
        check_shape(t, {n}, "");
        if (t.type == TensorType::F32 && aligned(t))
            return view(t, 1, n);
        check_finite(t, n);
        auto buffer = std::make_shared<std::vector<float>>(static_cast<size_t>(n));
        tensor_type_traits(t.type).to_float(t.data, buffer->data(), n);
        out_.storage.push_back(buffer);
        return WeightView{t.name, TensorType::F32, 1, n, reinterpret_cast<const std::byte*>(buffer->data())};
    }

private:
    void check_shape(const StoredTensor& t, const std::vector<int64_t>& expected, const char* note) const
    {
        if (squeezed(t.dims) != squeezed(expected))
            throw Error(source_.file + ": tensor '" + t.name + "' has shape " + dims_text(t.dims) + ", expected " +
                        dims_text(expected) + note);
    }

    static bool aligned(const StoredTensor& t)
    {
        return reinterpret_cast<uintptr_t>(t.data) % required_alignment(t.type) == 0;
    }

    void check_finite(const StoredTensor& t, int64_t elements) const
    {
        if (const auto bad = first_non_finite(t.type, t.data, elements))
            throw Error(source_.file + ": tensor '" + t.name + "' holds NaN or infinity (" +
                        (is_block_quantized(t.type) ? "the scale of block " : "element ") + std::to_string(*bad) +
                        "); the file is damaged");
    }

    WeightView view(const StoredTensor& t, int64_t rows, int64_t cols)
    {
        check_finite(t, rows * cols);
        WeightView v{t.name, t.type, rows, cols, t.data};
        if (!aligned(t)) {  // copy into storage with the alignment backends rely on
            auto buffer = std::make_shared<std::vector<uint64_t>>((v.bytes() + 7) / 8);
            std::memcpy(buffer->data(), t.data, v.bytes());
            out_.storage.push_back(buffer);
            v.data = reinterpret_cast<const std::byte*>(buffer->data());
        }
        return v;
    }

    const TensorSource& source_;
    std::set<std::string> used_;
    ModelWeights& out_;
};

} // namespace

void validate_model_config(const ModelConfig& c, const std::string& source)
{
    const auto fail = [&](const std::string& what) { throw Error(source + ": " + what); };
    const std::pair<const char*, int> sizes[] = {
        {"vocabulary size", c.n_vocab}, {"embedding width", c.dim}, {"feed-forward width", c.ffn_dim},
        {"layer count", c.n_layers},    {"head count", c.n_heads},  {"KV head count", c.n_kv_heads},
        {"context length", c.context_length},
    };
    for (const auto& [what, value] : sizes)
        if (value <= 0)
            fail(std::string(what) + " must be positive, found " + std::to_string(value));
    if (c.dim % c.n_heads != 0)
        fail("embedding width " + std::to_string(c.dim) + " is not a multiple of the head count " + std::to_string(c.n_heads));
    if (c.head_dim != c.dim / c.n_heads)
        fail("head size " + std::to_string(c.head_dim) + " differs from width / heads = " + std::to_string(c.dim / c.n_heads));
    if (c.head_dim % 2 != 0)
        fail("head size " + std::to_string(c.head_dim) + " is odd; RoPE needs pairs");
    if (c.n_heads % c.n_kv_heads != 0)
        fail("head count " + std::to_string(c.n_heads) + " is not a multiple of the KV head count " +
             std::to_string(c.n_kv_heads));
    if (!(c.rms_eps > 0.0f) || !std::isfinite(c.rms_eps))
        fail("RMS norm epsilon must be positive, found " + std::to_string(c.rms_eps));
    if (!(c.rope_theta > 0.0f) || !std::isfinite(c.rope_theta))
        fail("RoPE base must be positive, found " + std::to_string(c.rope_theta));
}

ModelWeights assemble_weights(ModelConfig config, const TensorSource& source, const std::function<void(double)>& progress)
{
    ModelWeights out;
    Assembler a(source, out);
    const auto report = [&](int done) {
        if (progress)
            progress(static_cast<double>(done) / (config.n_layers + 1));
    };

    const int64_t dim = config.dim;
    const int64_t q_rows = int64_t{config.n_heads} * config.head_dim;
    const int64_t kv_rows = config.kv_dim();
    out.token_embedding = a.matrix(WeightRole::TokenEmbedding, -1, config.n_vocab, dim);
    out.output_norm = a.norm(WeightRole::OutputNorm, -1, dim);
    std::optional<StoredTensor> output;
    if (!config.tied_output)
        output = a.find(WeightRole::Output, -1);
    if (output) {
        out.output = a.matrix(*output, config.n_vocab, dim);
    } else {
        out.output = out.token_embedding;
        config.tied_output = true;
    }
    report(0);

    for (int i = 0; i < config.n_layers; ++i) {
        LayerWeights l;
        l.attn_norm = a.norm(WeightRole::AttnNorm, i, dim);
        l.wq = a.matrix(WeightRole::Wq, i, q_rows, dim);
        l.wk = a.matrix(WeightRole::Wk, i, kv_rows, dim);
        l.wv = a.matrix(WeightRole::Wv, i, kv_rows, dim);
        l.wo = a.matrix(WeightRole::Wo, i, dim, q_rows);
        l.ffn_norm = a.norm(WeightRole::FfnNorm, i, dim);
        l.w_gate = a.matrix(WeightRole::Gate, i, config.ffn_dim, dim);
        l.w_up = a.matrix(WeightRole::Up, i, config.ffn_dim, dim);
        l.w_down = a.matrix(WeightRole::Down, i, dim, config.ffn_dim);
        out.layers.push_back(std::move(l));
        report(i + 1);
    }
    a.check_all_used();
    out.config = std::move(config);
    return out;
}

} // namespace pyramid
