#include "model/gguf_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.h"

namespace pyramid {
namespace {

constexpr uint32_t kGgufMagic = 0x46554747;  // "GGUF" read as a little-endian uint32
constexpr uint32_t kGgufVersion = 3;
constexpr uint64_t kAlignment = 32;          // GGUF's default; no general.alignment needed

// The header and metadata, encoded as GGUF lays them out (little-endian, as every machine
// this engine runs on).
class Encoder {
public:
    std::string bytes;
    uint64_t keys = 0;

    template <typename T>
    void put(T v)
    {
        bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    void string(std::string_view s)
    {
        put<uint64_t>(s.size());
        bytes.append(s);
    }
    // Starts a metadata entry, counted in `keys`.
    void key(std::string_view k, GgufType type)
    {
        string(k);
        put(static_cast<uint32_t>(type));
        ++keys;
    }
    void u32(std::string_view k, uint32_t v) { key(k, GgufType::UInt32), put(v); }
    void f32(std::string_view k, float v) { key(k, GgufType::Float32), put(v); }
    void text(std::string_view k, std::string_view v) { key(k, GgufType::String), string(v); }

    // A value read from another file, in its own type.
    void value(const GgufValue& v)
    {
        switch (v.type) {
        case GgufType::UInt8: put(static_cast<uint8_t>(std::get<uint64_t>(v.value))); break;
        case GgufType::UInt16: put(static_cast<uint16_t>(std::get<uint64_t>(v.value))); break;
        case GgufType::UInt32: put(static_cast<uint32_t>(std::get<uint64_t>(v.value))); break;
        case GgufType::UInt64: put(std::get<uint64_t>(v.value)); break;
        case GgufType::Int8: put(static_cast<int8_t>(std::get<int64_t>(v.value))); break;
        case GgufType::Int16: put(static_cast<int16_t>(std::get<int64_t>(v.value))); break;
        case GgufType::Int32: put(static_cast<int32_t>(std::get<int64_t>(v.value))); break;
        case GgufType::Int64: put(std::get<int64_t>(v.value)); break;
        // The reader keeps floats as double, exact for float32.
        case GgufType::Float32: put(static_cast<float>(std::get<double>(v.value))); break;
        case GgufType::Float64: put(std::get<double>(v.value)); break;
        case GgufType::Bool: put(static_cast<uint8_t>(std::get<bool>(v.value))); break;
        case GgufType::String: string(std::get<std::string_view>(v.value)); break;
        case GgufType::Array: {
            const GgufArray& array = *v.as_array();
            put(static_cast<uint32_t>(array.element_type()));
            put<uint64_t>(array.size());
            for (size_t i = 0; i < array.size(); ++i)
                value(array.at(i));
            break;
        }
        }
    }
};

uint64_t padding(uint64_t offset) { return (kAlignment - offset % kAlignment) % kAlignment; }

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};

} // namespace

uint64_t write_gguf_model(const std::filesystem::path& path, const ModelWeights& weights, const GgufFile& vocabulary,
                          const GgufWriteOptions& options)
{
    const ModelConfig& c = weights.config;
    const std::string where = path.string();
    // Generated weights mean nothing, so their q and k rows read as interleaved pairs are as good
    // as any; a checkpoint's would rotate the wrong dimensions.
    if (c.rope_layout != RopeLayout::Interleaved && !weights.synthetic)
        throw Error(where + ": these weights pair rotary dimensions as Hugging Face checkpoints do; GGUF files hold "
                            "them interleaved (llama.cpp's converter permutes q and k), so they are not written");
    const GgufArray* tokens = vocabulary.get_array("tokenizer.ggml.tokens");
    if (!tokens)
        throw Error(vocabulary.path().string() + ": no tokenizer.ggml.tokens, so it holds no vocabulary to write");
    if (tokens->size() != static_cast<size_t>(c.n_vocab))
        throw Error(vocabulary.path().string() + ": its vocabulary has " + std::to_string(tokens->size()) +
                    " tokens, the model " + std::to_string(c.n_vocab));
    const std::vector<const WeightView*> views = stored_views(weights);
    for (const WeightView* v : views)
        if (!v->data)
            throw Error(where + ": tensor '" + v->name + "' has no data on the host (generated off the host?)");

    Encoder meta;
    meta.text("general.architecture", "llama");
    meta.text("general.name", c.name);
    if (options.file_type)
        meta.u32("general.file_type", *options.file_type);
    meta.u32("llama.context_length", static_cast<uint32_t>(c.context_length));
    meta.u32("llama.embedding_length", static_cast<uint32_t>(c.dim));
    meta.u32("llama.block_count", static_cast<uint32_t>(c.n_layers));
    meta.u32("llama.feed_forward_length", static_cast<uint32_t>(c.ffn_dim));
    meta.u32("llama.attention.head_count", static_cast<uint32_t>(c.n_heads));
    meta.u32("llama.attention.head_count_kv", static_cast<uint32_t>(c.n_kv_heads));
    meta.u32("llama.rope.dimension_count", static_cast<uint32_t>(c.head_dim));
    meta.f32("llama.rope.freq_base", c.rope_theta);
    meta.f32("llama.attention.layer_norm_rms_epsilon", c.rms_eps);
    meta.u32("llama.vocab_size", static_cast<uint32_t>(c.n_vocab));
    for (const auto& [key, value] : vocabulary.metadata())
        if (key.starts_with("tokenizer.")) {
            meta.key(key, value.type);
            meta.value(value);
        }

    Encoder head;
    head.put(kGgufMagic);
    head.put(kGgufVersion);
    head.put<uint64_t>(views.size());
    head.put(meta.keys);
    head.bytes += meta.bytes;

    uint64_t data_bytes = 0;
    for (const WeightView* v : views) {
        head.string(v->name);
        const bool vector = v->rows == 1;  // the norms: llama.cpp wants them one-dimensional
        head.put<uint32_t>(vector ? 1 : 2);
        head.put<uint64_t>(static_cast<uint64_t>(v->cols));
        if (!vector)
            head.put<uint64_t>(static_cast<uint64_t>(v->rows));
        head.put(static_cast<uint32_t>(v->type));
        head.put<uint64_t>(data_bytes);
        data_bytes += v->bytes() + padding(v->bytes());
    }
    head.bytes.append(padding(head.bytes.size()), '\0');

    std::filesystem::path part = path;
    part += ".part";
    const auto failed = [&](const std::string& what) {
        const std::string reason = errno ? std::string(": ") + std::strerror(errno) : "";
        std::error_code ignored;
        std::filesystem::remove(part, ignored);
        return Error(where + ": " + what + reason);
    };
    {
        errno = 0;
        std::unique_ptr<std::FILE, FileCloser> out(std::fopen(part.c_str(), "wb"));
        if (!out)
            throw failed("cannot create " + part.filename().string());
        const auto write = [&](const void* data, size_t n) {
            errno = 0;
            if (n && std::fwrite(data, 1, n, out.get()) != n)
                throw failed("writing failed");
        };
        write(head.bytes.data(), head.bytes.size());
        static constexpr char zeros[kAlignment] = {};
        uint64_t written = 0;
        for (const WeightView* v : views) {
            write(v->data, v->bytes());
            write(zeros, padding(v->bytes()));
            written += v->bytes() + padding(v->bytes());
            if (options.progress)
                options.progress(data_bytes ? double(written) / double(data_bytes) : 1.0);
        }
        errno = 0;
        if (std::fflush(out.get()) != 0)
            throw failed("writing failed");
        if (std::fclose(out.release()) != 0)
            throw failed("closing failed");
    }
    std::error_code error;
    std::filesystem::rename(part, path, error);
    if (error) {
        std::filesystem::remove(part, error);
        throw Error(where + ": cannot rename " + part.filename().string() + " to it: " + error.message());
    }
    return head.bytes.size() + data_bytes;
}

} // namespace pyramid
