// Broken input of every kind is rejected with a pyramid::Error that names the file and the
// problem: truncation at every header byte, absurd counts, lengths and dimensions, bad offsets,
// unknown types, wrong shapes and settings, corrupt safetensors headers and missing shards,
// plus seeded random corruption. Nothing may crash (the ASan build checks memory safety) or
// throw anything but pyramid::Error.
#include <QtTest>

#include <sys/stat.h>

#include <cstring>
#include <functional>
#include <limits>
#include <random>

#include <nlohmann/json.hpp>

#include "gguf_builder.h"
#include "hf_builder.h"
#include "loader_test.h"
#include "model/gguf_file.h"
#include "shared_data.h"

using namespace pyramid;
using namespace pyramid::test;
namespace fs = std::filesystem;

namespace {

std::string u32_bytes(uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
std::string u64_bytes(uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }

std::string patched_u64(std::string bytes, size_t offset, uint64_t v)
{
    std::memcpy(bytes.data() + offset, &v, 8);
    return bytes;
}

std::string tiny_with(const std::function<void(GgufBuilder&)>& edit)
{
    GgufBuilder g = tiny_llama_gguf();
    edit(g);
    return g.build();
}

void replace_u32(GgufBuilder& g, const std::string& key, uint32_t value)
{
    g.remove_key(key);
    g.add_u32(key, value);
}

// Truncated copies of `bytes`, in `file`, must all make loading `model` fail: every length
// below `every_byte_until`, then every `stride`-th length up to the full size. The file is
// shrunk in place, longest first: rewriting it each time costs milliseconds on some disks.
void check_truncations(const fs::path& file, const fs::path& model, const std::string& bytes, size_t every_byte_until,
                       size_t stride)
{
    std::vector<size_t> lengths;
    for (size_t n = 0; n < bytes.size(); n += (n < every_byte_until ? 1 : stride))
        lengths.push_back(n);
    write_file(file, bytes);
    for (auto it = lengths.rbegin(); it != lengths.rend(); ++it) {
        fs::resize_file(file, *it);
        const LoadOutcome o = load_outcome(model);
        if (!o.rejected())
            QFAIL(qPrintable(QString("truncated to %1 of %2 bytes: %3").arg(*it).arg(bytes.size()).arg(QString::fromStdString(o.describe()))));
    }
}

// Seeded random byte changes in the first `region` bytes of `file`: loading `model` then
// succeeds or throws pyramid::Error, never anything else. Each round rewrites the file in
// place (same size, no truncation) and restores the bytes it changed.
void check_corruptions(const fs::path& file, const fs::path& model, const std::string& bytes, size_t region, int rounds,
                       uint32_t seed)
{
    write_file(file, bytes);
    std::fstream io(file, std::ios::binary | std::ios::in | std::ios::out);
    const auto put = [&](size_t at, char c) {
        io.seekp(static_cast<std::streamoff>(at));
        io.put(c);
        io.flush();
    };
    std::mt19937 rng(seed);
    for (int round = 0; round < rounds; ++round) {
        std::vector<size_t> changed;
        const int changes = 1 + static_cast<int>(rng() % 4);
        for (int c = 0; c < changes; ++c) {
            changed.push_back(rng() % region);
            put(changed.back(), static_cast<char>(rng()));
        }
        const LoadOutcome o = load_outcome(model);
        if (o.kind == LoadOutcome::OtherException)
            QFAIL(qPrintable(QString("round %1: %2").arg(round).arg(QString::fromStdString(o.describe()))));
        for (size_t at : changed)
            put(at, bytes[at]);
    }
}

} // namespace

void ModelLoaderTest::ggufTruncatedEverywhere()
{
    const fs::path path = fs::path(dir_.path().toStdString()) / "truncated.gguf";
    const std::string tiny = tiny_llama_gguf().build();
    write_file(path, tiny);
    QVERIFY(load_outcome(path).kind == LoadOutcome::Loaded);
    check_truncations(path, path, tiny, tiny.size(), 1);

    PYRAMID_REQUIRE_SHARED(stories, "models/stories260K.gguf");
    const std::string real = read_file(stories);
    const size_t data_offset = GgufFile::open(stories).data_offset();
    check_truncations(path, path, real, data_offset + 1, (real.size() - data_offset) / 500);
    write_file(path, real.substr(0, 1000));
    const LoadOutcome o = load_outcome(path);
    QVERIFY2(o.rejected_with("truncated") && o.rejected_with(path.string()), o.describe().c_str());
}

void ModelLoaderTest::ggufMalformed_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("fragment");
    const auto row = [](const char* name, const std::string& bytes, const char* fragment) {
        QTest::newRow(name) << QByteArray::fromStdString(bytes) << QString(fragment);
    };
    const std::string valid = tiny_llama_gguf().build();
    const auto tensor_edit = [](const char* name, const std::function<void(GgufTensorSpec&)>& edit) {
        return tiny_with([&](GgufBuilder& g) { edit(*g.tensor(name)); });
    };

    // Header
    row("empty file", "", "not a GGUF file");
    row("bad magic", "GGUX" + valid.substr(4), "not a GGUF file");
    row("version 1", tiny_with([](GgufBuilder& g) { g.version = 1; }), "unsupported GGUF version 1");
    row("version 4", tiny_with([](GgufBuilder& g) { g.version = 4; }), "unsupported GGUF version 4");
    row("big-endian", tiny_with([](GgufBuilder& g) { g.version = 0x03000000; }), "big-endian");
    row("huge tensor count", tiny_with([](GgufBuilder& g) { g.n_tensors_override = 1ull << 60; }), "tensor count claims");
    row("huge metadata count", tiny_with([](GgufBuilder& g) { g.n_kv_override = ~0ull; }), "metadata count claims");
    row("metadata count too high", tiny_with([](GgufBuilder& g) { g.n_kv_override = g.entries.size() + 5; }), "");

    // Metadata values
    row("huge key length", patched_u64(valid, 24, 1ull << 63), "truncated");
    row("huge string length", tiny_with([](GgufBuilder& g) { g.add_raw("bad.string", 8, u64_bytes(1ull << 62) + "abc"); }),
        "metadata \"bad.string\"");
    row("huge array count", tiny_with([](GgufBuilder& g) { g.add_raw("bad.array", 9, u32_bytes(6) + u64_bytes(1ull << 61)); }),
        "claims");
    row("huge string array count",
        tiny_with([](GgufBuilder& g) { g.add_raw("bad.strings", 9, u32_bytes(8) + u64_bytes(~0ull)); }), "claims");
    std::string deep;
    for (int i = 0; i < 9; ++i)
        deep += u32_bytes(9) + u64_bytes(1);
    deep += u32_bytes(4) + u64_bytes(0);
    row("arrays nested too deep", tiny_with([&](GgufBuilder& g) { g.add_raw("deep", 9, deep); }), "nests arrays deeper");
    row("unknown value type", tiny_with([](GgufBuilder& g) { g.add_raw("bad.type", 13, ""); }), "unknown value type 13");
    row("unknown element type", tiny_with([](GgufBuilder& g) { g.add_raw("bad.elements", 9, u32_bytes(77) + u64_bytes(1)); }),
        "unknown value type 77");
    row("bool out of range", tiny_with([](GgufBuilder& g) { g.add_raw("bad.bool", 7, "\x05"); }), "bool holding 5");
    row("duplicate key", tiny_with([](GgufBuilder& g) { g.add_u32("llama.block_count", 1); }), "appears twice");
    row("alignment not a power of two", tiny_with([](GgufBuilder& g) { g.add_u32("general.alignment", 24); }),
        "not a power of two");
    row("alignment not uint32", tiny_with([](GgufBuilder& g) { g.add_string("general.alignment", "32"); }),
        "general.alignment must be a uint32");

    // Tensor infos
    row("zero dimensions", tensor_edit("blk.0.attn_q.weight", [](auto& t) { t.n_dims = 0; }), "0 dimensions");
    row("five dimensions", tensor_edit("blk.0.attn_q.weight", [](auto& t) { t.ne = {32, 8, 1, 1, 4}; }), "5 dimensions");
    row("huge dimension count", tensor_edit("blk.0.attn_q.weight", [](auto& t) { t.n_dims = 0x7fffffff; }), "dimensions");
    row("dimension above int64", tensor_edit("blk.0.attn_q.weight", [](auto& t) { t.ne = {1ull << 63, 1}; }), "too large");
    row("element count overflow", tensor_edit("blk.0.attn_q.weight", [](auto& t) { t.ne = {1ull << 32, 1ull << 32}; }),
        "overflows");
    row("byte size overflow", tensor_edit("blk.0.attn_q.weight", [](auto& t) { t.ne = {1ull << 62, 1}; }), "overflows");
    row("unknown type id", tensor_edit("blk.0.attn_q.weight", [](auto& t) { t.type = 99; }),
        "tensor 'blk.0.attn_q.weight' has unknown type id 99");
    row("retired type id", tensor_edit("blk.0.attn_k.weight", [](auto& t) { t.type = 4; }), "unknown type id 4");
    row("row not whole blocks", tensor_edit("blk.0.attn_q.weight", [](auto& t) { t.type = 12; }), "not a multiple");
    row("offset past end", tensor_edit("blk.0.attn_q.weight", [](auto& t) { t.offset = 1ull << 40; }), "past the end");
    row("offset near 2^64", tensor_edit("blk.0.attn_q.weight", [](auto& t) { t.offset = ~0ull - 31; }), "past the end");
    row("misaligned offset", tensor_edit("token_embd.weight", [](auto& t) { t.offset = 4; }), "not aligned");
    row("overlapping tensors", tensor_edit("output_norm.weight", [](auto& t) { t.offset = 0; }), "overlap");
    row("byte size larger than data", tensor_edit("token_embd.weight", [](auto& t) { t.bytes.resize(t.bytes.size() / 2); }),
        "overlap");
    row("last tensor larger than file",
        tensor_edit("blk.0.ffn_down.weight", [](auto& t) { t.bytes.resize(t.bytes.size() / 4); }), "past the end");
    row("duplicate tensor", tiny_with([](GgufBuilder& g) { g.add_tensor(*g.tensor("output_norm.weight")); }),
        "'output_norm.weight' appears twice");

    // Model level
    row("unknown architecture", tiny_with([](GgufBuilder& g) {
            g.remove_key("general.architecture");
            g.add_string("general.architecture", "gpt2");
        }), "unsupported architecture \"gpt2\"");
    row("no architecture", tiny_with([](GgufBuilder& g) { g.remove_key("general.architecture"); }), "general.architecture");
    row("no embedding length", tiny_with([](GgufBuilder& g) { g.remove_key("llama.embedding_length"); }),
        "missing metadata 'llama.embedding_length'");
    row("block count as string", tiny_with([](GgufBuilder& g) {
            g.remove_key("llama.block_count");
            g.add_string("llama.block_count", "1");
        }), "\"llama.block_count\" should be an integer");
    row("zero heads", tiny_with([](GgufBuilder& g) { replace_u32(g, "llama.attention.head_count", 0); }), "positive");
    row("heads do not divide width", tiny_with([](GgufBuilder& g) {
            replace_u32(g, "llama.attention.head_count", 3);
            g.remove_key("llama.rope.dimension_count");
        }), "not a multiple of the head count");
    row("kv heads do not divide heads", tiny_with([](GgufBuilder& g) { replace_u32(g, "llama.attention.head_count_kv", 3); }),
        "KV head count");
    row("no rms epsilon", tiny_with([](GgufBuilder& g) { g.remove_key("llama.attention.layer_norm_rms_epsilon"); }),
        "layer_norm_rms_epsilon");
    row("negative rms epsilon", tiny_with([](GgufBuilder& g) {
            g.remove_key("llama.attention.layer_norm_rms_epsilon");
            g.add_f32("llama.attention.layer_norm_rms_epsilon", -1.0f);
        }), "should be a positive number");
    row("partial rope", tiny_with([](GgufBuilder& g) { replace_u32(g, "llama.rope.dimension_count", 4); }), "partial RoPE");
    row("rope scaling", tiny_with([](GgufBuilder& g) { g.add_string("llama.rope.scaling.type", "linear"); }), "scaled RoPE");
    row("part of a split model", tiny_with([](GgufBuilder& g) { g.add_u32("split.count", 3); }), "one of 3 parts");
    row("wrong matrix shape", tensor_edit("blk.0.attn_q.weight", [](auto& t) {
            t.ne = {32, 16};
            t.bytes.resize(32 * 16 * 4);
        }), "tensor 'blk.0.attn_q.weight' has shape [16, 32], expected [32, 32]");
    row("transposed matrix", tensor_edit("blk.0.ffn_down.weight", [](auto& t) { t.ne = {32, 64}; }),
        "tensor 'blk.0.ffn_down.weight' has shape [64, 32], expected [32, 64]");
    row("wrong norm length", tensor_edit("output_norm.weight", [](auto& t) {
            t.ne = {16};
            t.bytes.resize(64);
        }), "tensor 'output_norm.weight' has shape [16], expected [32]");
    row("matrix as vector", tensor_edit("token_embd.weight", [](auto& t) { t.ne = {256}; }), "token_embd.weight");
    // Strings from the file are quoted short in messages, and ggml's name limit holds.
    row("a 5 MB architecture name", tiny_with([](GgufBuilder& g) {
            g.remove_key("general.architecture");
            g.add_string("general.architecture", std::string(5 << 20, 'x'));
        }), "unsupported architecture \"xxxxxxxxxx");
    row("a tensor name past ggml's 63 bytes", tensor_edit("output_norm.weight", [](auto& t) { t.name = std::string(64, 'n'); }),
        "is 64 bytes long");
    // Weights that are not numbers: every reply would be garbage with no word why.
    row("NaN in a float matrix", tensor_edit("blk.0.attn_k.weight", [](auto& t) {
            const float nan = std::numeric_limits<float>::quiet_NaN();
            std::memcpy(t.bytes.data() + 4 * 37, &nan, 4);
        }), "tensor 'blk.0.attn_k.weight' holds NaN or infinity (element 37)");
    row("infinity in a norm", tensor_edit("output_norm.weight", [](auto& t) {
            const float inf = std::numeric_limits<float>::infinity();
            std::memcpy(t.bytes.data(), &inf, 4);
        }), "tensor 'output_norm.weight' holds NaN or infinity (element 0)");
    // Tensors nobody reads: llama.cpp refuses such a file too ("wrong number of tensors").
    row("more blocks than declared", [] {
            GgufBuilder g = tiny_llama_gguf(2);
            replace_u32(g, "llama.block_count", 1);
            return g.build();
        }(), "holds 9 tensors the model does not use (\"blk.1.");
    row("an extra tensor", tiny_with([](GgufBuilder& g) {
            GgufTensorSpec extra = *g.tensor("output_norm.weight");
            extra.name = "rope_freqs.weight";
            g.add_tensor(extra);
        }), "holds 1 tensor the model does not use (\"rope_freqs.weight\")");
    row("missing tensor", tiny_with([](GgufBuilder& g) { g.remove_tensor("blk.0.ffn_up.weight"); }),
        "missing tensor 'blk.0.ffn_up.weight'");
    row("more layers than tensors", tiny_with([](GgufBuilder& g) { replace_u32(g, "llama.block_count", 1000000); }),
        "missing tensor 'blk.1.attn_norm.weight'");
    row("vocab size disagrees", tiny_with([](GgufBuilder& g) { g.add_u32("llama.vocab_size", 9); }), "llama.vocab_size 9");
    row("token count disagrees", tiny_with([](GgufBuilder& g) {
            g.remove_key("tokenizer.ggml.scores");
            g.remove_key("tokenizer.ggml.token_type");
            g.remove_key("tokenizer.ggml.tokens");
            g.add_string_array("tokenizer.ggml.tokens", {"a", "b", "c", "d", "e", "f", "g"});
        }), "embedded vocabulary has 7 tokens");
    row("scores length disagrees", tiny_with([](GgufBuilder& g) {
            g.remove_key("tokenizer.ggml.scores");
            g.add_f32_array("tokenizer.ggml.scores", {0, 0});
        }), "tokenizer.ggml.scores has 2 entries for 8 tokens");
    row("tokens not strings", tiny_with([](GgufBuilder& g) {
            g.remove_key("tokenizer.ggml.tokens");
            g.add_f32_array("tokenizer.ggml.tokens", {0, 0, 0, 0, 0, 0, 0, 0});
        }), "tokenizer.ggml.tokens should hold strings");
    row("bos outside vocabulary", tiny_with([](GgufBuilder& g) { replace_u32(g, "tokenizer.ggml.bos_token_id", 8); }),
        "outside the vocabulary");
}

void ModelLoaderTest::ggufMalformed()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, fragment);
    const fs::path path = write_file(fs::path(dir_.path().toStdString()) / "malformed.gguf", bytes.toStdString());
    const LoadOutcome o = load_outcome(path);
    QVERIFY2(o.rejected_with(fragment.toStdString()), o.describe().c_str());
    QVERIFY2(o.rejected_with(path.string()), o.describe().c_str());  // every message names the file
    QVERIFY2(o.message.size() < 600, "a message echoed the file at length");
}

void ModelLoaderTest::ggufRandomCorruption()
{
    const fs::path path = fs::path(dir_.path().toStdString()) / "corrupt.gguf";
    const std::string tiny = tiny_llama_gguf().build();
    write_file(path, tiny);
    check_corruptions(path, path, tiny, GgufFile::open(path).data_offset(), 3000, 1234);

    PYRAMID_REQUIRE_SHARED(stories, "models/stories260K.gguf");
    check_corruptions(path, path, read_file(stories), GgufFile::open(stories).data_offset(), 300, 99);
}

void ModelLoaderTest::safetensorsMalformed_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("fragment");
    const auto row = [](const char* name, const std::string& bytes, const char* fragment) {
        QTest::newRow(name) << QByteArray::fromStdString(bytes) << QString(fragment);
    };
    const auto header_only = [](const std::string& header) { return safetensors_raw(header, std::string(64, '\0')); };
    const auto tiny_with_entries = [](const std::function<void(std::vector<SafetensorsEntry>&)>& edit) {
        auto entries = tiny_llama_hf_entries();
        edit(entries);
        return safetensors_bytes(entries);
    };
    const auto entry = [](std::vector<SafetensorsEntry>& v, const std::string& name) -> SafetensorsEntry& {
        for (auto& e : v)
            if (e.name == name)
                return e;
        throw std::logic_error("no entry " + name);
    };

    row("too short", "abc", "too short");
    row("header length past end", u64_bytes(1ull << 40) + "{}", "exceeds the file size");
    row("header not JSON", header_only("{\"a\": {\"dtype\": "), "not valid JSON");
    row("header is an array", header_only("[1, 2]"), "not a JSON object");
    row("deeply nested header", header_only(std::string(20000, '[') + std::string(20000, ']')), "JSON nested deeper than 64 levels");
    row("metadata not an object", header_only("{\"__metadata__\": 5}"), "__metadata__");
    row("entry not an object", header_only("{\"a\": 5}"), "tensor \"a\" is not described");
    row("missing dtype", header_only("{\"a\": {\"shape\": [1], \"data_offsets\": [0, 4]}}"), "no \"dtype\"");
    row("unknown dtype", header_only("{\"a\": {\"dtype\": \"F13\", \"shape\": [1], \"data_offsets\": [0, 4]}}"),
        "unknown dtype \"F13\"");
    row("missing shape", header_only("{\"a\": {\"dtype\": \"F32\", \"data_offsets\": [0, 4]}}"), "no \"shape\"");
    row("negative dimension", header_only("{\"a\": {\"dtype\": \"F32\", \"shape\": [-1], \"data_offsets\": [0, 4]}}"),
        "invalid dimension");
    row("fractional dimension", header_only("{\"a\": {\"dtype\": \"F32\", \"shape\": [1.5], \"data_offsets\": [0, 4]}}"),
        "invalid dimension");
    row("shape overflow",
        header_only("{\"a\": {\"dtype\": \"F32\", \"shape\": [4611686018427387904, 4611686018427387904], \"data_offsets\": [0, 4]}}"),
        "overflows");
    row("missing offsets", header_only("{\"a\": {\"dtype\": \"F32\", \"shape\": [1]}}"), "data_offsets");
    row("reversed offsets", header_only("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [8, 4]}}"),
        "lie outside");
    row("offsets past end", header_only("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 1099511627776]}}"),
        "lie outside");
    row("size disagrees with shape", header_only("{\"a\": {\"dtype\": \"F32\", \"shape\": [4], \"data_offsets\": [0, 8]}}"),
        "holds 8 bytes but its dtype F32 and shape need 16");
    row("overlapping tensors",
        header_only("{\"a\": {\"dtype\": \"F32\", \"shape\": [4], \"data_offsets\": [0, 16]},"
                    " \"b\": {\"dtype\": \"F32\", \"shape\": [4], \"data_offsets\": [8, 24]}}"),
        "overlap");
    row("integer weights", tiny_with_entries([&](auto& v) { entry(v, "model.embed_tokens.weight").dtype = "I32"; }),
        "weights must be F32, F16 or BF16");
    row("wrong shape", tiny_with_entries([&](auto& v) {
            auto& e = entry(v, "model.layers.0.self_attn.k_proj.weight");
            e.shape = {8, 64};
        }), "tensor 'model.layers.0.self_attn.k_proj.weight' has shape [8, 64], expected [16, 32]");
    row("missing tensor", tiny_with_entries([](auto& v) {
            std::erase_if(v, [](const SafetensorsEntry& e) { return e.name == "model.layers.0.mlp.up_proj.weight"; });
        }), "missing tensor 'model.layers.0.mlp.up_proj.weight'");
}

void ModelLoaderTest::safetensorsMalformed()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, fragment);
    const fs::path folder = fs::path(dir_.path().toStdString()) / "malformed-hf";
    write_file(folder / "config.json", tiny_llama_hf_config());
    write_file(folder / "model.safetensors", bytes.toStdString());
    const LoadOutcome o = load_outcome(folder);
    QVERIFY2(o.rejected_with(fragment.toStdString()), o.describe().c_str());
    QVERIFY2(o.rejected_with(folder.string()), o.describe().c_str());
}

void ModelLoaderTest::huggingFaceFolderMalformed()
{
    struct Case {
        const char* name;
        std::function<void(const fs::path&)> make;
        const char* fragment;
    };
    const std::string weights = safetensors_bytes(tiny_llama_hf_entries());
    const auto config_with = [](const std::function<void(nlohmann::json&)>& edit) {
        nlohmann::json c = nlohmann::json::parse(tiny_llama_hf_config());
        edit(c);
        return c.dump();
    };
    const auto folder_with_config = [&](const std::string& config) {
        return [&weights, config](const fs::path& f) {
            write_file(f / "config.json", config);
            write_file(f / "model.safetensors", weights);
        };
    };
    // Two shards, entries alternating; `edit` may change the index before it is written.
    const auto sharded = [](const std::function<void(nlohmann::json&)>& edit) {
        return [edit](const fs::path& f) {
            const auto entries = tiny_llama_hf_entries();
            std::vector<SafetensorsEntry> shard[2];
            nlohmann::json index = {{"weight_map", nlohmann::json::object()}};
            for (size_t i = 0; i < entries.size(); ++i) {
                shard[i % 2].push_back(entries[i]);
                index["weight_map"][entries[i].name] = "part" + std::to_string(i % 2) + ".safetensors";
            }
            edit(index);
            write_file(f / "config.json", tiny_llama_hf_config());
            write_file(f / "part0.safetensors", safetensors_bytes(shard[0]));
            write_file(f / "part1.safetensors", safetensors_bytes(shard[1]));
            write_file(f / "model.safetensors.index.json", index.dump());
        };
    };

    const std::vector<Case> cases = {
        {"valid sharded folder loads", sharded([](nlohmann::json&) {}), nullptr},
        {"no config", [&](const fs::path& f) { write_file(f / "model.safetensors", weights); }, "no config.json"},
        // Unused tensors are refused, except the rotary inverse frequencies old checkpoints
        // saved (transformers recomputes them too).
        {"an unused tensor", [&](const fs::path& f) {
             auto entries = tiny_llama_hf_entries();
             entries.push_back(entries.back());
             entries.back().name = "model.layers.0.self_attn.q_norm.weight";
             write_file(f / "config.json", tiny_llama_hf_config());
             write_file(f / "model.safetensors", safetensors_bytes(entries));
         }, "holds 1 tensor the model does not use (\"model.layers.0.self_attn.q_norm.weight\")"},
        {"rotary inverse frequencies load", [&](const fs::path& f) {
             auto entries = tiny_llama_hf_entries();
             entries.push_back(entries.back());
             entries.back().name = "model.layers.0.self_attn.rotary_emb.inv_freq";
             write_file(f / "config.json", tiny_llama_hf_config());
             write_file(f / "model.safetensors", safetensors_bytes(entries));
         }, nullptr},
        {"config not JSON", folder_with_config("{\"hidden_size\": "), "config.json: not valid JSON"},
        {"config nested 65,000 deep",
         folder_with_config("{\"hidden_act\": " + std::string(65000, '[') + std::string(65000, ']') + "}"),
         "config.json: JSON nested deeper than 64 levels"},
        {"config repeats a key", folder_with_config("{\"hidden_size\": 32, \"hidden_size\": 64}"),
         "the key \"hidden_size\" appears twice"},
        {"config is a FIFO", [&](const fs::path& f) {
             fs::create_directories(f);
             QVERIFY(::mkfifo((f / "config.json").c_str(), 0600) == 0);
             write_file(f / "model.safetensors", weights);
         }, "not a Hugging Face model folder (no config.json)"},
        {"other architecture", folder_with_config(config_with([](auto& c) { c["model_type"] = "gpt2"; })),
         "unsupported architecture 'gpt2'"},
        {"no hidden size", folder_with_config(config_with([](auto& c) { c.erase("hidden_size"); })), "missing \"hidden_size\""},
        {"hidden size as string", folder_with_config(config_with([](auto& c) { c["hidden_size"] = "32"; })),
         "\"hidden_size\" should be a positive integer"},
        {"negative layers", folder_with_config(config_with([](auto& c) { c["num_hidden_layers"] = -2; })),
         "\"num_hidden_layers\" should be a positive integer"},
        {"rope scaling", folder_with_config(config_with([](auto& c) { c["rope_scaling"] = {{"type", "linear"}}; })),
         "rope_scaling"},
        {"other activation", folder_with_config(config_with([](auto& c) { c["hidden_act"] = "gelu"; })), "hidden_act"},
        {"attention bias", folder_with_config(config_with([](auto& c) { c["attention_bias"] = true; })),
         "\"attention_bias\" is true"},
        {"mlp bias", folder_with_config(config_with([](auto& c) { c["mlp_bias"] = true; })), "\"mlp_bias\" is true"},
        {"odd head_dim", folder_with_config(config_with([](auto& c) { c["head_dim"] = 16; })), "head_dim"},
        {"heads do not divide width", folder_with_config(config_with([](auto& c) { c["num_attention_heads"] = 5; })),
         "not a multiple of the head count"},
        {"config wider than weights", folder_with_config(config_with([](auto& c) { c["hidden_size"] = 64; })),
         "tensor 'model.embed_tokens.weight' has shape [8, 32], expected [8, 64]"},
        {"no weights", [](const fs::path& f) { write_file(f / "config.json", tiny_llama_hf_config()); },
         "no model.safetensors or model.safetensors.index.json"},
        {"missing shard", [&](const fs::path& f) {
             sharded([](nlohmann::json&) {})(f);
             fs::remove(f / "part1.safetensors");
         }, "shard 'part1.safetensors' is missing"},
        {"shard outside the folder", sharded([](auto& i) { i["weight_map"]["model.norm.weight"] = "../part0.safetensors"; }),
         "not a file in the folder"},
        {"index not JSON", [&](const fs::path& f) {
             sharded([](nlohmann::json&) {})(f);
             write_file(f / "model.safetensors.index.json", "{\"weight_map\": {");
         }, "not valid JSON"},
        {"index without weight_map", sharded([](auto& i) { i.erase("weight_map"); }), "weight_map"},
        {"index names the wrong shard",
         sharded([](auto& i) { i["weight_map"]["model.norm.weight"] = "part0.safetensors"; }),  // it is in part1
         "does not hold it"},
        {"index omits a tensor", sharded([](auto& i) { i["weight_map"].erase("model.layers.0.mlp.gate_proj.weight"); }),
         "missing tensor 'model.layers.0.mlp.gate_proj.weight'"},
    };
    int n = 0;
    for (const Case& c : cases) {
        const fs::path folder = fs::path(dir_.path().toStdString()) / ("hf-case-" + std::to_string(n++));
        c.make(folder);
        const LoadOutcome o = load_outcome(folder);
        const bool ok = c.fragment ? o.rejected_with(c.fragment) && o.rejected_with(folder.string())
                                   : o.kind == LoadOutcome::Loaded;
        QVERIFY2(ok, (std::string(c.name) + ": " + o.describe()).c_str());
    }
}

void ModelLoaderTest::safetensorsTruncatedAndCorrupted()
{
    const fs::path folder = fs::path(dir_.path().toStdString()) / "truncated-hf";
    write_file(folder / "config.json", tiny_llama_hf_config());
    const std::string bytes = safetensors_bytes(tiny_llama_hf_entries());
    uint64_t header_len = 0;
    std::memcpy(&header_len, bytes.data(), 8);
    check_truncations(folder / "model.safetensors", folder, bytes, 8 + header_len + 1, 13);
    check_corruptions(folder / "model.safetensors", folder, bytes, 8 + header_len, 1500, 7);
}
