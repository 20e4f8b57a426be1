#include "inspect_report.h"

#include <map>

#include <fmt/format.h>

#include "backend/device_weight_layout.h"
#include "util/byte_size.h"

namespace pyramid::inspect {
namespace {

// 13951200 -> "13,951,200"
std::string grouped(uint64_t n)
{
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

std::string shape_text(const std::vector<int64_t>& shape)
{
    std::string s;
    for (int64_t d : shape)
        s += (s.empty() ? "" : " x ") + std::to_string(d);
    return s.empty() ? "scalar" : s;
}

std::string token_text(int32_t id, const std::string& piece)
{
    return id < 0 ? "none" : fmt::format("{} {}", id, piece);
}

// What a stored tensor costs once loaded: the CPU backend keeps matrices as stored and turns
// vectors (norms) into float32; the CUDA backend (fp16) keeps quantized matrices in its block
// layout (backend/device_weight_layout.h), float matrices in fp16 and vectors in float32.
uint64_t cpu_bytes(const TensorEntry& t)
{
    const bool vector = t.shape.size() == 1;
    return vector && t.type != TensorType::F32 ? static_cast<uint64_t>(t.elements) * 4 : t.bytes;
}

uint64_t cuda_fp16_bytes(const TensorEntry& t)
{
    if (t.shape.size() == 1)
        return static_cast<uint64_t>(t.elements) * 4;
    return t.type ? device_matrix_bytes(*t.type, t.elements, 2) : static_cast<uint64_t>(t.elements) * 2;
}

void print_row(std::FILE* out, const std::string& key, const std::string& value)
{
    fmt::print(out, "  {:<30}  {}\n", key, value);
}

} // namespace

void print_summary(std::FILE* out, const ModelContents& m)
{
    const ModelConfig& c = m.config;
    fmt::print(out, "Model\n");
    print_row(out, "path", m.path.string());
    print_row(out, "name", c.name.empty() ? "(none)" : c.name);
    print_row(out, "format",
              fmt::format("{}, {} bytes ({})", m.format, grouped(m.file_bytes), byte_size_text(m.file_bytes)));
    print_row(out, "architecture", c.architecture);
    for (const auto& [key, value] : m.facts)
        print_row(out, key, value);

    fmt::print(out, "\nHyperparameters\n");
    print_row(out, "vocabulary size", std::to_string(c.n_vocab));
    print_row(out, "embedding width", std::to_string(c.dim));
    print_row(out, "feed-forward width", std::to_string(c.ffn_dim));
    print_row(out, "layers", std::to_string(c.n_layers));
    print_row(out, "attention heads", std::to_string(c.n_heads));
    print_row(out, "key/value heads", fmt::format("{}{}", c.n_kv_heads,
                                                  c.n_kv_heads < c.n_heads ? " (grouped-query attention)" : ""));
    print_row(out, "head size", std::to_string(c.head_dim));
    print_row(out, "context length", std::to_string(c.context_length));
    print_row(out, "RoPE", fmt::format("theta {}, {}", c.rope_theta,
                                       c.rope_layout == RopeLayout::Interleaved ? "interleaved pairs (GGUF layout)"
                                                                                : "rotate-half (Hugging Face layout)"));
    print_row(out, "RMS norm epsilon", fmt::format("{}", c.rms_eps));
    print_row(out, "output projection", c.tied_output ? "tied to the token embedding" : "its own matrix");

    fmt::print(out, "\nTokenizer\n");
    if (!m.tokenizer) {
        print_row(out, "type", "none found (GGUF without tokenizer.ggml.*, or folder without tokenizer.model)");
    } else {
        const TokenizerFacts& t = *m.tokenizer;
        print_row(out, "type", t.kind);
        print_row(out, "vocabulary size", std::to_string(t.vocab_size));
        print_row(out, "BOS", token_text(t.bos_id, t.bos_piece) + (t.add_bos ? " (starts every prompt)" : ""));
        print_row(out, "EOS", token_text(t.eos_id, t.eos_piece));
        if (!t.chat_template.empty())
            print_row(out, "chat template", t.chat_template);
    }

    fmt::print(out, "\nTensors: {} (shape in {})\n", m.tensors.size(), m.shape_order);
    size_t name_width = 4;
    for (const TensorEntry& t : m.tensors)
        name_width = std::max(name_width, t.name.size());
    fmt::print(out, "  {:>5}  {:<{}}  {:<6}  {:<20}  {:>15}\n", "#", "name", name_width, "type", "shape", "bytes");
    for (size_t i = 0; i < m.tensors.size(); ++i) {
        const TensorEntry& t = m.tensors[i];
        fmt::print(out, "  {:>5}  {:<{}}  {:<6}  {:<20}  {:>15}\n", i, t.name, name_width, t.type_name,
                   shape_text(t.shape), grouped(t.bytes));
    }

    struct Totals {
        size_t tensors = 0;
        uint64_t elements = 0, file = 0, cpu = 0, cuda = 0;
    };
    std::map<std::string, Totals> by_type;  // in type-name order
    Totals all;
    for (const TensorEntry& t : m.tensors)
        for (Totals* s : {&by_type[t.type_name], &all}) {
            ++s->tensors;
            s->elements += static_cast<uint64_t>(t.elements);
            s->file += t.bytes;
            s->cpu += cpu_bytes(t);
            s->cuda += cuda_fp16_bytes(t);
        }
    fmt::print(out, "\nStorage by type (memory as loaded: CPU keeps matrices as stored, norms in f32; "
                    "CUDA keeps quantized matrices as stored, float ones in fp16, norms in f32)\n");
    const auto line = [&](const std::string& type, const Totals& s) {
        fmt::print(out, "  {:<6}  {:>7}  {:>15}  {:>15}  {:>12}  {:>12}\n", type, s.tensors, grouped(s.elements),
                   grouped(s.file), byte_size_text(s.cpu), byte_size_text(s.cuda));
    };
    fmt::print(out, "  {:<6}  {:>7}  {:>15}  {:>15}  {:>12}  {:>12}\n", "type", "tensors", "elements", "file bytes",
               "CPU memory", "CUDA fp16");
    for (const auto& [type, s] : by_type)
        line(type, s);
    line("total", all);
}

void print_memory_estimate(std::FILE* out, const WeightMemory& weights, const KvEstimate& kv,
                           const CudaScratch& cuda_scratch, const std::string& preset)
{
    const size_t cpu_entry = kv.bytes_per_entry_cpu;
    const size_t full_cpu = KvEstimate::total(kv.full_lengths, cpu_entry);
    const size_t full_cuda = KvEstimate::total(kv.full_lengths, kv.bytes_per_entry_cuda);
    const size_t pyr_cpu = KvEstimate::total(kv.pyramid_lengths, cpu_entry);
    const size_t pyr_cuda = KvEstimate::total(kv.pyramid_lengths, kv.bytes_per_entry_cuda);

    fmt::print(out, "\nMemory for a {}-token prompt, full KV cache vs PyramidInfer ({})\n", kv.prompt_tokens, preset);
    fmt::print(out, "  {:<30}  {:>30}  {:>30}\n", "", "CPU backend (KV " + kv_types_name(kv.cpu_types) + ")",
               "CUDA backend (KV " + kv_types_name(kv.cuda_types) + ")");
    const auto row = [&](const std::string& what, size_t cpu, size_t cuda) {
        fmt::print(out, "  {:<30}  {:>30}  {:>30}\n", what, byte_size_text(cpu), byte_size_text(cuda));
    };
    row("weights", weights.cpu_bytes, weights.cuda_fp16_bytes);
    row("KV cache, full", full_cpu, full_cuda);
    row("KV cache, PyramidInfer", pyr_cpu, pyr_cuda);
    fmt::print(out, "  {:<30}  {:>30}  {:>30}\n", "activations and scratch", "-", byte_size_text(cuda_scratch.total()));
    const size_t cuda_fixed = weights.cuda_fp16_bytes + cuda_scratch.total();
    row("total, full", weights.cpu_bytes + full_cpu, cuda_fixed + full_cuda);
    row("total, PyramidInfer", weights.cpu_bytes + pyr_cpu, cuda_fixed + pyr_cuda);
    const double saving = full_cuda ? 100.0 * (1.0 - static_cast<double>(pyr_cuda) / static_cast<double>(full_cuda)) : 0.0;
    fmt::print(out, "  PyramidInfer keeps {:.1f}% less KV cache. Entries per layer after the prefill:\n", saving);
    std::string lengths;
    for (int n : kv.pyramid_lengths)
        lengths += (lengths.empty() ? "" : " ") + std::to_string(n);
    fmt::print(out, "    full          {} in each of {} layers\n", kv.prompt_tokens, kv.full_lengths.size());
    fmt::print(out, "    PyramidInfer  {}\n", lengths);
    fmt::print(out, "  One entry is {} bytes per layer on the CPU ({}), {} on the GPU ({}; key and value, scales included).\n",
               kv.bytes_per_entry_cpu, kv_types_name(kv.cpu_types), kv.bytes_per_entry_cuda,
               kv_types_name(kv.cuda_types));
    fmt::print(out,
               "  CUDA activations and scratch: {} for the prompt's step ({} rows at once, as a small GPU runs it;\n"
               "  one with more memory free runs more), {} of dequantization tiles, {} of cuBLAS workspace; the\n"
               "  CUDA runtime's own context (a few hundred MiB, by driver) comes on top. The CPU backend's\n"
               "  activations are ordinary process memory.\n",
               byte_size_text(cuda_scratch.steps), cuda_scratch.chunk_rows, byte_size_text(cuda_scratch.dequant),
               byte_size_text(cuda_scratch.cublas));
}

void print_gpu_fit(std::FILE* out, const ModelWeights& weights, const CompressionConfig& pyramid,
                   const std::string& preset, const std::vector<double>& gib, const std::vector<KvTypes>& kv_types)
{
    fmt::print(out,
               "\nLongest prompt the CUDA backend (fp16) runs in one step, by GPU memory left for the model and by\n"
               "KV cache type (a card's memory less the CUDA context and other programs: a few hundred MiB or more)\n");
    fmt::print(out, "  {:<12}  {:<14}  {:>12}  {:>24}\n", "GPU memory", "KV cache", "full cache",
               "PyramidInfer (" + preset + ")");
    const CompressionConfig full = CompressionConfig::full_cache();
    for (double g : gib) {
        const size_t memory = static_cast<size_t>(g * double(1ull << 30));
        std::string memory_text = fmt::format("{:g} GiB", g);
        for (const KvTypes& types : kv_types) {
            const auto cell = [&](const CompressionConfig& config) {
                const int n = longest_prompt(weights, config, memory, types);
                return n > 0 ? grouped(static_cast<uint64_t>(n)) : std::string("-");
            };
            fmt::print(out, "  {:<12}  {:<14}  {:>12}  {:>24}\n", memory_text, kv_types_name(types), cell(full),
                       cell(pyramid));
            memory_text.clear();  // once per size
        }
    }
    fmt::print(out, "  The model's context is {} tokens; \"-\": not even one token fits.\n",
               grouped(static_cast<uint64_t>(weights.config.context_length)));
    // The memory decides the chunk too (chunk_rows_for_memory): said, since it is in the sums.
    std::string chunks;
    for (double g : gib)
        chunks += fmt::format("{}{:g} GiB {}", chunks.empty() ? "" : ", ", g,
                              grouped(static_cast<uint64_t>(
                                  cuda_chunk_rows(weights, static_cast<size_t>(g * double(1ull << 30))))));
    fmt::print(out, "  Prompt rows a layer runs at once: {}.\n", chunks);
}

} // namespace pyramid::inspect
