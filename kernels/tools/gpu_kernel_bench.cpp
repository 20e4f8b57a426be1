// pyramid-gpu-kernel-bench: the projection kernels of the CUDA backend per weight type, and a
// prompt's attention (below), on the device's clock (CUDA events). For each type: a
// decode-sized product (1, 4 and 8 input rows: quantized types take both matvecs of
// quant_matvec.h, alternating: `int8`, what the fp16 backend runs (its activations rounded
// beforehand, as the backend's norms round them), and `exact`, the float one; fp16 takes
// half_matvec.h's `matvec` and cublasGemmEx, alternating) as bytes of weights read per second
// next to the device's copy bandwidth, and larger ones (16 and 32 rows, a batch of more
// sequences than a matvec takes, and 512, a prompt's chunk: dequantized tiles through
// cublasGemmEx, or one GEMM for fp16) in TFLOP/s; a batch of 16 or 32 beside the 8-row matvec
// says whether two or four matvecs would beat the tiles there. Each product cycles through enough
// copies of its matrix to pass the L2 cache, so the weights come from device memory as they do
// in a model. Weights are generated as pyramid-bench generates them. On devices of compute
// capability 9.0, the matvecs are timed a third way in the same rounds, `overlapped`: each
// launched to overlap the one before (kernel_stream.h), the gap between kernels hidden and
// each asking L2 for its weights while the one before ends (grid_dependency.cuh).
//
// Then a prompt's attention, the part of a prefill that grows with the square of the prompt:
// causal attention of n query rows over n entries (one layer, LLaMA-2-7B's 32 heads of 128
// unless told otherwise) stored as fp16, q8 and q4, by the two kernels attention() chooses
// between (attention_ops.h), the tensor cores' and the CUDA cores' float32 one, taking turns,
// with their ratio. And a batch-1 decode step's attention (decode_attention.h) over caches of
// those lengths, each call timed alone after the L2 cache was flushed, as bytes of keys and
// values read per second next to the copy bandwidth.
//
// Prints Markdown tables on stdout; --json writes the same numbers. Exit codes: 0 done,
// 2 bad options, 3 a CUDA error, 77 no CUDA device (as the GPU tests).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "command_line.h"
#include "cuda_check.h"
#include "attention_ops.h"
#include "backend/device_weight_layout.h"
#include "backend/kv_precision.h"
#include "block_upload.h"
#include "cuda_kv_layer_store.h"
#include "decode_attention.h"
#include "device_buffer.h"
#include "event_timer.h"
#include "half_matvec.h"
#include "host_uploads.h"
#include "kv_memory.h"
#include "kv_ops.h"
#include "tensor_core_attention.h"
#include "model/synthetic_storage.h"
#include "model/synthetic_weights.h"
#include "projection.h"
#include "quant_matvec.h"
#include "util/error.h"
#include "util/float16.h"
#include "util/measurement.h"

namespace {

using namespace pyramid;

struct Options {
    int64_t rows = 4096, cols = 4096;
    std::vector<int> decode_rows{1, 4, 8};
    std::vector<int> prompt_rows{16, 32, 512};
    std::vector<std::string> types{"q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_k",
                                   "q3_k", "q4_k", "q5_k", "q6_k", "f16"};
    int calls = 50;  // products per timing
    size_t working_set_mib = 512;
};

struct AttentionOptions {
    std::vector<int> lens{512, 3840};  // prompt tokens
    std::vector<std::string> kv_types{"f16", "q8", "q4"};  // the entries', keys and values alike
    int heads = 32, kv_heads = 32, head_dim = 128;
    int calls = 3;
};

struct AttentionResult {
    std::string kv_type;
    std::string kernel;  // tensor cores or CUDA cores
    int len = 0;
    double ms = 0;       // per call: one layer's attention
    double tflops = 0;   // of the causal product's multiply-adds (QK^T and PV), counted as 2 each
};

struct DecodeResult {
    std::string kv_type;
    int len = 0;             // cache entries of the one sequence
    double us = 0;           // per call: one layer's decode attention (splits and merge)
    double kv_gbps = 0;      // bytes of keys and values per second
};

struct Result {
    std::string type;
    std::string path;          // int8, exact (quantized matvecs), tiles (quantized GEMM); matvec or cublas (fp16)
    int n = 0;
    double us = 0;             // per product
    double weight_gbps = 0;    // bytes of weights per second
    double tflops = 0;
};

// The matrix of `type` as the backend holds it: a quantized type's blocks in the device's layout
// (backend/device_weight_layout.h), or fp16. `bytes`: on the device, what a product reads.
struct BenchMatrix {
    TensorType storage;
    size_t bytes = 0;
    std::vector<cuda::DeviceBuffer> copies;
};

BenchMatrix upload_copies(TensorType type, const Options& o)
{
    const int64_t elements = o.rows * o.cols;
    BenchMatrix m{type, device_matrix_bytes(type, elements, 2), {}};
    std::vector<std::byte> host(tensor_row_bytes(type, o.cols) * static_cast<size_t>(o.rows));
    fill_synthetic_matrix(host.data(), type, o.rows, o.cols, 0x5eed + static_cast<uint64_t>(type));
    const size_t copies = std::max<size_t>(1, (o.working_set_mib << 20) / m.bytes);
    for (size_t i = 0; i < copies; ++i) {
        m.copies.emplace_back(m.bytes, "benchmark weights");
        if (is_block_quantized(type))
            cuda::upload_blocks(type, host.data(), elements / tensor_type_traits(type).block_elems,
                                m.copies.back().data(), "benchmark weights");
        else
            cuda::check(cudaMemcpy(m.copies.back().data(), host.data(), m.bytes, cudaMemcpyHostToDevice), "upload");
    }
    return m;
}

// Median per-product microseconds of `calls` products (one timing per repeat, 5 repeats).
template <typename F>
double time_us(cudaStream_t stream, int calls, F&& product)
{
    cuda::EventTimer timer(stream);
    product(0);  // warm-up: first touches, cuBLAS heuristics
    std::vector<double> per_call;
    for (int repeat = 0; repeat < 5; ++repeat) {
        timer.start();
        for (int c = 0; c < calls; ++c)
            product(c);
        per_call.push_back(1e3 * timer.stop_ms() / calls);
    }
    return median(per_call);
}

// Median microseconds of `calls` single calls, each timed alone after `flush` was overwritten
// (untimed), so the call finds nothing of its inputs in the L2 cache: in a model, the other
// layers' caches pass through L2 between one layer's calls.
template <typename F>
double time_cold_us(cudaStream_t stream, int calls, const cuda::DeviceBuffer& flush, F&& call)
{
    cuda::EventTimer timer(stream);
    call();  // warm-up
    std::vector<double> us;
    for (int c = 0; c < calls; ++c) {
        cuda::check(cudaMemsetAsync(flush.data(), c & 0xff, flush.bytes(), stream), "cudaMemsetAsync");
        timer.start();
        call();
        us.push_back(1e3 * timer.stop_ms());
    }
    return median(us);
}

std::vector<Result> bench_type(cublasHandle_t handle, cudaStream_t stream, TensorType type, const Options& o,
                               const cuda::DeviceBuffer& x, const cuda::DeviceBuffer& y, bool overlaps)
{
    // The matvecs once more, each launched to overlap the one before (kernel_stream.h), where the
    // device can: back to back, as a decode step's kernels run.
    const cuda::KernelStream overlapped(stream, true);
    const bool quantized = is_block_quantized(type);
    const BenchMatrix m = upload_copies(quantized ? type : TensorType::F16, o);
    const auto matrix = [&](int c) {
        const void* data = m.copies[static_cast<size_t>(c) % m.copies.size()].data();
        return cuda::DeviceMatrix{data, o.rows, o.cols, cuda::Precision::Fp16,
                                  quantized ? std::optional<TensorType>(type) : std::nullopt};
    };
    const cuda::DeviceMatrix first = matrix(0);
    const size_t scratch_bytes = cuda::projection_scratch_bytes({&first}, cuda::Precision::Fp16);
    const cuda::DeviceBuffer scratch(std::max<size_t>(scratch_bytes, 256), "benchmark projection scratch");
    std::vector<Result> results;
    const auto add = [&](const char* path, int n, double us) {
        const double flops = 2.0 * static_cast<double>(o.rows) * static_cast<double>(o.cols) * n;
        results.push_back({std::string(tensor_type_traits(type).name), path, n, us,
                           static_cast<double>(m.bytes) / (us * 1e-6) / 1e9, flops / (us * 1e-6) / 1e12});
    };
    const auto projected = [&](int n) {
        return time_us(stream, o.calls, [&](int c) {
            cuda::project(handle, matrix(c), x.data(), n, y.as<float>(), 0.0f, {scratch.data(), scratch.bytes()});
        });
    };
    for (int n : o.decode_rows) {
        if (!quantized) {
            // Both ways alternating: half_matvec, what the backend runs at up to kHalfMatvecRows
            // rows, and cublasGemmEx, what it runs at more (the table says where that limit belongs).
            std::vector<double> matvec_us, cublas_us, overlapped_us;
            for (int round = 0; round < 3; ++round) {
                matvec_us.push_back(time_us(stream, o.calls, [&](int c) {
                    cuda::half_matvec(matrix(c).data, o.rows, o.cols, x.data(), n, y.as<float>(), 0.0f, stream);
                }));
                cublas_us.push_back(time_us(stream, o.calls, [&](int c) {
                    cuda::dense_gemm(handle, matrix(c), x.data(), n, y.as<float>());
                }));
                if (overlaps)
                    overlapped_us.push_back(time_us(stream, o.calls, [&](int c) {
                        cuda::half_matvec(matrix(c).data, o.rows, o.cols, x.data(), n, y.as<float>(), 0.0f,
                                          overlapped);
                    }));
            }
            add("matvec", n, median(matvec_us));
            add("cublas", n, median(cublas_us));
            if (overlaps)
                add("matvec overlapped", n, median(overlapped_us));
            continue;
        }
        // Alternating, so both see the same clocks and temperature. The activations are rounded
        // to int8 once, outside the timing, as the backend's RMSNorm and SwiGLU round them.
        const cuda::Int8Rows rounded =
            cuda::round_rows_int8(x.data(), cuda::Precision::Fp16, n, o.cols, scratch.data(), stream);
        std::vector<double> int8_us, exact_us, overlapped_us;
        for (int round = 0; round < 3; ++round) {
            int8_us.push_back(time_us(stream, o.calls, [&](int c) {
                cuda::quant_matvec_int8(type, matrix(c).data, o.rows, o.cols, rounded, n, y.as<float>(), 0.0f, stream);
            }));
            if (overlaps)
                overlapped_us.push_back(time_us(stream, o.calls, [&](int c) {
                    cuda::quant_matvec_int8(type, matrix(c).data, o.rows, o.cols, rounded, n, y.as<float>(), 0.0f,
                                            overlapped);
                }));
            exact_us.push_back(time_us(stream, o.calls, [&](int c) {
                cuda::quant_matvec(type, matrix(c).data, o.rows, o.cols, x.data(), cuda::Precision::Fp16, n,
                                   y.as<float>(), 0.0f, stream);
            }));
        }
        add("int8", n, median(int8_us));
        if (overlaps)
            add("int8 overlapped", n, median(overlapped_us));
        add("exact", n, median(exact_us));
    }
    for (int n : o.prompt_rows)
        add(quantized ? "tiles" : "cublas", n, projected(n));
    return results;
}

// Both prompt kernels over one cache of `type` entries, at each prompt length; and a decode
// step's attention for one sequence whose cache holds that many entries (into `decode`, each
// call after `flush`: time_cold_us).
std::vector<AttentionResult> bench_attention(cudaStream_t stream, const AttentionOptions& a, const std::string& type,
                                             const cuda::DeviceBuffer& flush, std::vector<DecodeResult>& decode)
{
    const int longest = *std::max_element(a.lens.begin(), a.lens.end());
    const int kv_dim = a.kv_heads * a.head_dim, q_width = a.heads * a.head_dim;
    constexpr int kBlockEntries = 16;
    const int blocks = (longest + kBlockEntries - 1) / kBlockEntries;
    cuda::WorkStream work(stream);
    cuda::HostUploads uploads(work);
    cuda::KvMemory memory(cuda::KvGeometry{kv_dim, kBlockEntries, KvTypes{parse_kv_precision(type)}}, size_t(blocks),
                          blocks, 64, work, uploads);
    cuda::CudaKvLayerStore store(memory);

    std::mt19937 rng(2);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    const auto random_device_floats = [&](size_t count, const char* what) {
        std::vector<float> host(count);
        for (float& x : host)
            x = value(rng);
        cuda::DeviceBuffer buffer(count * sizeof(float), what);
        cuda::check(cudaMemcpy(buffer.data(), host.data(), buffer.bytes(), cudaMemcpyHostToDevice), "upload");
        return buffer;
    };
    const cuda::DeviceBuffer k = random_device_floats(size_t(longest) * kv_dim, "benchmark keys");
    const cuda::DeviceBuffer v = random_device_floats(size_t(longest) * kv_dim, "benchmark values");
    const cuda::DeviceBuffer q = random_device_floats(size_t(longest) * q_width, "benchmark queries");
    store.reserve_append(longest);
    cuda::store_kv(k.as<float>(), v.as<float>(), longest, 0, store.table(), stream);
    store.commit_append(longest);
    const cuda::KvBlockTable table = store.table();
    const cuda::DeviceBuffer out(size_t(longest) * q_width * sizeof(uint16_t), "benchmark attention output");
    const cuda::DeviceBuffer stats(size_t(longest) * a.heads * 2 * sizeof(float), "benchmark attention stats");
    const cuda::AttentionDims dims{a.heads, a.kv_heads, a.head_dim};

    std::vector<AttentionResult> results;
    for (int len : a.lens) {
        // As a prompt of len tokens runs: its rows over its own entries, the stats kept for the probe.
        std::vector<double> tensor_us, cuda_core_us;
        for (int round = 0; round < 3; ++round) {
            tensor_us.push_back(time_us(stream, a.calls, [&](int) {
                cuda::tensor_core_attention(q.as<float>(), len, table, len, dims, out.data(), stats.as<float>(), stream);
            }));
            cuda_core_us.push_back(time_us(stream, a.calls, [&](int) {
                cuda::cuda_core_attention(q.as<float>(), len, table, len, dims, cuda::Precision::Fp16, out.data(),
                                          stats.as<float>(), stream);
            }));
        }
        const double flops = 4.0 * a.head_dim * a.heads * (double(len) * (len + 1) / 2);
        for (auto [kernel, us] :
             {std::pair{"tensor cores", median(tensor_us)}, std::pair{"CUDA cores", median(cuda_core_us)}})
            results.push_back({type, kernel, len, us / 1e3, flops / (us * 1e-6) / 1e12});
    }

    // Decode: the last of len entries is the new row's, one query row, as a batch-1 step runs.
    for (int len : a.lens) {
        std::vector<cuda::DecodeSequence> sequences(1);
        sequences[0].blocks = table.blocks;
        sequences[0].len = len;
        const cuda::DecodeLayout layout = cuda::lay_out_decode_batch(sequences, a.heads);
        const cuda::DeviceBuffer on_device(sizeof(cuda::DecodeSequence), "benchmark decode sequence");
        cuda::check(cudaMemcpy(on_device.data(), sequences.data(), sizeof(cuda::DecodeSequence), cudaMemcpyHostToDevice),
                    "upload");
        const cuda::DeviceBuffer partial_stats(size_t(layout.splits) * a.heads * 2 * sizeof(float), "benchmark splits");
        const cuda::DeviceBuffer partial_out(size_t(layout.splits) * a.heads * a.head_dim * sizeof(float),
                                             "benchmark splits");
        const cuda::DecodeBatch batch{static_cast<const cuda::DecodeSequence*>(on_device.data()), layout, table.format};
        const cuda::DecodeScratch scratch{partial_stats.as<float>(), partial_out.as<float>(), nullptr};
        const double us = time_cold_us(stream, 5 * a.calls, flush, [&] {
            cuda::decode_attention(q.as<float>(), batch, dims, cuda::Precision::Fp16, out.data(), nullptr, scratch,
                                   nullptr, stream);
        });
        const double bytes = double(len) * double(memory.geometry().entry_bytes());
        decode.push_back({type, len, us, bytes / (us * 1e-6) / 1e9});
    }
    return results;
}

} // namespace

int main(int argc, char** argv)
{
    CLI::App app{"Time the CUDA backend's projection kernels per weight type.", "pyramid-gpu-kernel-bench"};
    Options o;
    std::string json_path;
    app.add_option("--rows", o.rows, "output features of the matrix")
        ->check(CLI::Range(1, 1 << 20))
        ->capture_default_str();
    app.add_option("--cols", o.cols, "input features (a multiple of 256)")
        ->check(CLI::Range(256, 1 << 20))
        ->capture_default_str();
    app.add_option("--decode-rows", o.decode_rows, "input rows of the decode-sized products")
        ->delimiter(',')
        ->check(CLI::Range(1, cuda::kMaxMatvecRows))
        ->capture_default_str();
    app.add_option("--prompt-rows", o.prompt_rows, "input rows of the larger products (tiles, or cuBLAS for fp16)")
        ->delimiter(',')
        ->check(CLI::Range(cuda::kMaxMatvecRows + 1, 8192))
        ->capture_default_str();
    app.add_option("--types", o.types, "weight types, as pyramid-bench --weight-type names them")
        ->delimiter(',')
        ->capture_default_str();
    app.add_option("--calls", o.calls, "products per timing (5 timings, the median is reported)")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    app.add_option("--working-set-mib", o.working_set_mib, "copies of each matrix to cycle through, in MiB")
        ->check(CLI::Range(1, 1 << 16))
        ->capture_default_str();
    AttentionOptions attention;
    app.add_option("--attention-lens", attention.lens, "prompt tokens of the attention timings")
        ->delimiter(',')
        ->check(CLI::Range(1, 32768))
        ->capture_default_str();
    app.add_option("--attention-kv-types", attention.kv_types, "KV entry types of the attention timings")
        ->delimiter(',')
        ->check(CLI::IsMember({"f16", "q8", "q4"}))
        ->capture_default_str();
    app.add_option("--attention-heads", attention.heads, "query heads of the attention timings")
        ->check(CLI::Range(1, 256))
        ->capture_default_str();
    app.add_option("--attention-kv-heads", attention.kv_heads, "KV heads of the attention timings (divide the heads)")
        ->check(CLI::Range(1, 256))
        ->capture_default_str();
    app.add_option("--attention-head-dim", attention.head_dim, "head size of the attention timings: 64 or 128")
        ->capture_default_str();
    app.add_option("--attention-calls", attention.calls, "attention calls per timing (5 timings, the median)")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    app.add_option("--json", json_path, "also write the results here");
    if (const auto status = parse_command_line(app, argc, argv, "pyramid-gpu-kernel-bench"))
        return *status;
    std::vector<TensorType> types;
    try {
        if (o.cols % 256 != 0)
            throw Error("--cols must be a multiple of 256 (one K-quant super-block)");
        for (const std::string& name : o.types) {
            const SyntheticStorage storage = SyntheticStorage::parse(name);
            if (storage.medium_mix || (!is_block_quantized(storage.base) && storage.base != TensorType::F16))
                throw Error("'" + name + "': name one quantized type or f16");
            types.push_back(storage.base);
        }
        cuda::KvBlockFormat f16;
        f16.key_type = f16.value_type = KvPrecision::F16;
        if (!cuda::tensor_core_attention_fits(cuda::Precision::Fp16, f16, attention.head_dim))
            throw Error("--attention-head-dim must be 64 or 128 (the sizes the tensor-core kernel takes)");
        if (attention.heads % attention.kv_heads != 0)
            throw Error("--attention-kv-heads must divide --attention-heads");
    } catch (const Error& e) {
        fmt::print(stderr, "pyramid-gpu-kernel-bench: {}\n", e.what());
        return 2;
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        fmt::print("pyramid-gpu-kernel-bench: skipped, no CUDA device\n");
        return 77;
    }

    try {
        cudaDeviceProp prop{};
        cuda::check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
        cublasHandle_t handle = nullptr;
        cuda::check(cublasCreate(&handle), "cublasCreate");
        // A stream of our own, as the backend's: the legacy stream is no place for launches that
        // overlap (the `overlapped` rows).
        cudaStream_t stream = nullptr;
        cuda::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
        const std::unique_ptr<CUstream_st, decltype(&cudaStreamDestroy)> owned_stream(stream, cudaStreamDestroy);
        cuda::check(cublasSetStream(handle, stream), "cublasSetStream");
        const double copy_gbps = cuda::device_copy_bandwidth(stream) / 1e9;

        // Activations in fp16, as the backend's fp16 precision hands them to the projections.
        std::mt19937 rng(1);
        std::uniform_real_distribution<float> value(-1.0f, 1.0f);
        const int64_t most_rows = *std::max_element(o.prompt_rows.begin(), o.prompt_rows.end());
        std::vector<uint16_t> host_x(static_cast<size_t>(most_rows * o.cols));
        for (uint16_t& h : host_x)
            h = fp32_to_fp16(value(rng));
        const cuda::DeviceBuffer x(host_x.size() * sizeof(uint16_t), "benchmark activations");
        cuda::check(cudaMemcpy(x.data(), host_x.data(), x.bytes(), cudaMemcpyHostToDevice), "upload");
        const cuda::DeviceBuffer y(static_cast<size_t>(most_rows * o.rows) * sizeof(float), "benchmark outputs");

        std::vector<Result> results;
        for (TensorType type : types)
            for (const Result& r : bench_type(handle, stream, type, o, x, y, prop.major >= 9))
                results.push_back(r);
        cublasDestroy(handle);
        std::vector<AttentionResult> attention_results;
        std::vector<DecodeResult> decode_results;
        // Twice the L2 cache, overwritten before each timed decode call.
        const cuda::DeviceBuffer flush(std::max<size_t>(2 * size_t(prop.l2CacheSize), 1 << 20), "benchmark L2 flush");
        for (const std::string& type : attention.kv_types)
            for (const AttentionResult& r : bench_attention(stream, attention, type, flush, decode_results))
                attention_results.push_back(r);

        fmt::print("Device: {}; copy bandwidth {:.0f} GB/s (read + write); {}\n", prop.name, copy_gbps,
                   utc_timestamp());
        fmt::print("y = x W^T, W {} x {} generated, x fp16; {} products per timing, median of 5; weights cycled "
                   "through {} MiB.\n\n",
                   o.rows, o.cols, o.calls, o.working_set_mib);
        fmt::print("| type | path | input rows | us per product | weights GB/s | of copy bandwidth | TFLOP/s |\n"
                   "|---|---|---:|---:|---:|---:|---:|\n");
        nlohmann::json rows_json = nlohmann::json::array();
        for (const Result& r : results) {
            fmt::print("| {} | {} | {} | {:.1f} | {:.0f} | {:.0f}% | {:.1f} |\n", r.type, r.path, r.n, r.us,
                       r.weight_gbps, 100.0 * r.weight_gbps / copy_gbps, r.tflops);
            rows_json.push_back({{"type", r.type},
                                 {"path", r.path},
                                 {"input_rows", r.n},
                                 {"us", r.us},
                                 {"weight_gbps", r.weight_gbps},
                                 {"tflops", r.tflops}});
        }
        fmt::print("\nPrompt attention: causal, n query rows over n entries, {} heads ({} KV heads) of {}, fp16 "
                   "out; {} calls per timing, median of 5; the kernels take turns.\n\n",
                   attention.heads, attention.kv_heads, attention.head_dim, attention.calls);
        fmt::print("| KV entries | prompt tokens | kernel | ms per layer | TFLOP/s | time vs CUDA cores |\n"
                   "|---|---:|---|---:|---:|---:|\n");
        nlohmann::json attention_json = nlohmann::json::array();
        for (size_t i = 0; i < attention_results.size(); ++i) {
            const AttentionResult& r = attention_results[i];
            const AttentionResult& cuda_cores = attention_results[i - i % 2 + 1];
            fmt::print("| {} | {} | {} | {:.3f} | {:.1f} | {:.3f}x |\n", r.kv_type, r.len, r.kernel, r.ms, r.tflops,
                       r.ms / cuda_cores.ms);
            attention_json.push_back({{"kv_type", r.kv_type},
                                      {"prompt_tokens", r.len},
                                      {"kernel", r.kernel},
                                      {"ms", r.ms},
                                      {"tflops", r.tflops}});
        }
        fmt::print("\nDecode attention: one sequence (batch 1), one query row over its cache of n entries, {} heads "
                   "({} KV heads) of {}; each call timed alone with the L2 cache flushed first, median of {}.\n\n",
                   attention.heads, attention.kv_heads, attention.head_dim, 5 * attention.calls);
        fmt::print("| KV entries | cache entries | us per layer | KV GB/s | of copy bandwidth |\n"
                   "|---|---:|---:|---:|---:|\n");
        nlohmann::json decode_json = nlohmann::json::array();
        for (const DecodeResult& r : decode_results) {
            fmt::print("| {} | {} | {:.1f} | {:.0f} | {:.0f}% |\n", r.kv_type, r.len, r.us, r.kv_gbps,
                       100.0 * r.kv_gbps / copy_gbps);
            decode_json.push_back(
                {{"kv_type", r.kv_type}, {"cache_entries", r.len}, {"us", r.us}, {"kv_gbps", r.kv_gbps}});
        }
        if (!json_path.empty()) {
            const nlohmann::json doc = {{"tool", "pyramid-gpu-kernel-bench"},
                                        {"device", prop.name},
                                        {"date", utc_timestamp()},
                                        {"copy_gbps", copy_gbps},
                                        {"rows", o.rows},
                                        {"cols", o.cols},
                                        {"calls", o.calls},
                                        {"working_set_mib", o.working_set_mib},
                                        {"results", rows_json},
                                        {"attention",
                                         {{"heads", attention.heads},
                                          {"kv_heads", attention.kv_heads},
                                          {"head_dim", attention.head_dim},
                                          {"calls", attention.calls},
                                          {"results", attention_json},
                                          {"decode", decode_json}}}};
            std::ofstream(json_path) << doc.dump(2) << "\n";
        }
    } catch (const Error& e) {
        fmt::print(stderr, "pyramid-gpu-kernel-bench: {}\n", e.what());
        return 3;
    }
    return 0;
}
