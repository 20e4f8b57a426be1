// Every CUDA kernel against the CPU reference (core/backend/cpu_kernels.h) on fresh random
// inputs at several sizes: odd lengths, lengths that are not a multiple of the KV block size,
// grouped-query ratios from 1 to 8, both RoPE layouts and both precisions. Outputs are filled
// with NaN before each run, so anything a kernel fails to write shows up.
//
// Tolerances: fp32 results differ from the reference only by summation order (1e-5 relative
// for short sums, 1e-4 for long ones). fp16 results are compared with a reference computed on
// the same fp16-rounded inputs, so what remains is the rounding of the output itself: half
// precision keeps 11 significant bits, a relative step of 2^-11 ~ 4.9e-4. Generated weights
// must equal the host generator's bit for bit.
#include <cublas_v2.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "attention_checks.h"
#include "attention_ops.h"
#include "tensor_core_attention.h"
#include "backend/cpu_kernels.h"
#include "cuda_check.h"
#include "decode_attention_tests.h"
#include "device_weights.h"
#include "elementwise_ops.h"
#include "filled_store.h"
#include "gpu_test.h"
#include "half_matvec_tests.h"
#include "int8_rows_tests.h"
#include "kv_ops.h"
#include "kv_quantized_tests.h"
#include "memory_tests.h"
#include "work_stream_tests.h"
#include "model/synthetic_value.h"
#include "model/synthetic_weights.h"
#include "projection.h"
#include "quant_kernel_tests.h"
#include "synthetic_ops.h"
#include "top_logits_tests.h"

using namespace pyramid;
using namespace pyramid::gpu_test;
using cuda::Precision;

namespace {

std::mt19937 rng(20261121);

WeightView f32_view(const std::vector<float>& values, int64_t rows, int64_t cols)
{
    WeightView v;
    v.name = "test";
    v.type = TensorType::F32;
    v.rows = rows;
    v.cols = cols;
    v.data = reinterpret_cast<const std::byte*>(values.data());
    return v;
}

std::vector<int32_t> random_positions(size_t n, int limit)
{
    std::uniform_int_distribution<int32_t> d(0, limit);
    std::vector<int32_t> out(n);
    for (int32_t& p : out)
        p = d(rng);
    return out;
}

void rms_norm_matches()
{
    for (Precision p : kPrecisions)
        for (int n : {1, 3, 17})
            for (int dim : {8, 64, 257, 4096}) {
                const auto x = random_floats(rng, size_t(n) * dim, -3.0f, 3.0f);
                const auto w = random_floats(rng, size_t(dim), 0.5f, 1.5f);
                std::vector<float> expected(x.size());
                cpu::rms_norm(x.data(), f32_view(w, 1, dim), n, dim, 1e-5f, expected.data());
                auto dx = upload(x), dw = upload(w);
                auto out = poisoned(x.size(), p);
                cuda::rms_norm(dx.as<float>(), dw.as<float>(), n, dim, 1e-5f, out.data(), p, nullptr);
                const double rel = p == Precision::Fp32 ? 1e-5 : kHalfStep;
                check_close(label("rms_norm n=" + std::to_string(n) + " dim=" + std::to_string(dim), p),
                            download(out.data(), x.size(), p), expected, 1e-6, rel);
            }
}

// Alone, and with keys of 1 or 3 heads beside (rotated in the same launch).
void rope_matches()
{
    for (RopeLayout layout : {RopeLayout::Interleaved, RopeLayout::RotateHalf})
        for (int n : {1, 5, 33})
            for (int heads : {1, 4})
                for (int hd : {8, 64, 128})
                    for (int key_heads : {0, 1, 3}) {
                        const auto x = random_floats(rng, size_t(n) * heads * hd);
                        const auto keys = random_floats(rng, size_t(n) * key_heads * hd);
                        const auto positions = random_positions(size_t(n), 4000);
                        std::vector<float> expected = x, expected_keys = keys;
                        cpu::rope(expected.data(), n, heads, hd, positions, 10000.0f, layout);
                        cpu::rope(expected_keys.data(), n, key_heads, hd, positions, 10000.0f, layout);
                        auto dx = upload(x);
                        auto dk = key_heads ? upload(keys) : cuda::DeviceBuffer();
                        auto dp = upload_raw(positions);
                        cuda::rope(dx.as<float>(), n, heads, hd, dp.as<int32_t>(), 10000.0f, layout, nullptr,
                                   dk.as<float>(), key_heads);
                        const std::string what = std::string("rope ") +
                                                 (layout == RopeLayout::Interleaved ? "interleaved" : "rotate-half") +
                                                 " n=" + std::to_string(n) + " heads=" + std::to_string(heads) + "+" +
                                                 std::to_string(key_heads) + " hd=" + std::to_string(hd);
                        check_close(what, download(dx.data(), x.size()), expected, 1e-5, 1e-5);
                        if (key_heads)
                            check_close(what + " keys", download(dk.data(), keys.size()), expected_keys, 1e-5, 1e-5);
                    }
}

void swiglu_matches()
{
    for (Precision p : kPrecisions)
        for (int64_t count : {int64_t(1), int64_t(1000), int64_t(3 * 11008 + 5)}) {
            const auto gate = random_floats(rng, size_t(count), -6.0f, 6.0f);
            const auto up = random_floats(rng, size_t(count), -2.0f, 2.0f);
            std::vector<float> expected = gate;
            cpu::swiglu(expected.data(), up.data(), count);
            auto dg = upload(gate), du = upload(up);
            auto out = poisoned(size_t(count), p);
            cuda::swiglu(dg.as<float>(), du.as<float>(), count, out.data(), p, nullptr);
            check_close(label("swiglu count=" + std::to_string(count), p), download(out.data(), size_t(count), p),
                        expected, 1e-6, p == Precision::Fp32 ? 1e-5 : kHalfStep);
        }
}

void embed_and_gather_match()
{
    for (Precision p : kPrecisions) {
        const int vocab = 300, dim = 72;
        // The device table holds the rounded values, so the rows must come back exactly.
        const auto table = rounded(random_floats(rng, size_t(vocab) * dim), p);
        std::vector<int32_t> tokens = random_positions(37, vocab - 1);
        tokens[0] = 0;
        tokens[1] = vocab - 1;
        std::vector<float> expected(tokens.size() * dim);
        cpu::embed_rows(f32_view(table, vocab, dim), tokens, expected.data());
        auto dt = upload(table, p);
        auto dk = upload_raw(tokens);
        auto out = poisoned(expected.size());
        cuda::embed_rows(dt.data(), p, dim, dk.as<int32_t>(), int(tokens.size()), out.as<float>(), nullptr);
        check_close(label("embed_rows", p), download(out.data(), expected.size()), expected, 0.0, 0.0);

        const std::vector<int32_t> rows = {0, 3, 4, 20, 36};
        std::vector<float> gathered;
        for (int32_t r : rows)
            gathered.insert(gathered.end(), expected.begin() + r * dim, expected.begin() + (r + 1) * dim);
        auto dr = upload_raw(rows);
        auto dst = poisoned(gathered.size());
        cuda::gather_rows(out.as<float>(), dim, dr.as<int32_t>(), int(rows.size()), dst.as<float>(), nullptr);
        check_close("gather_rows", download(dst.data(), gathered.size()), gathered, 0.0, 0.0);
    }
}

void projection_matches()
{
    cublasHandle_t handle = nullptr;
    cuda::check(cublasCreate(&handle), "cublasCreate");
    for (Precision p : kPrecisions) {
        cuda::check(cublasSetMathMode(handle, p == Precision::Fp32 ? CUBLAS_PEDANTIC_MATH : CUBLAS_DEFAULT_MATH),
                    "math mode");
        for (auto [rows, cols, n] : {std::tuple{7, 5, 1}, std::tuple{96, 64, 13}, std::tuple{512, 1024, 3}}) {
            const auto w = rounded(random_floats(rng, size_t(rows) * cols), p);
            const auto x = rounded(random_floats(rng, size_t(n) * cols), p);
            const auto y0 = random_floats(rng, size_t(n) * rows);
            for (float beta : {0.0f, 1.0f}) {
                std::vector<float> expected(y0.size());
                cpu::matmul(f32_view(w, rows, cols), x.data(), n, expected.data());
                if (beta == 1.0f)
                    for (size_t i = 0; i < expected.size(); ++i)
                        expected[i] += y0[i];
                auto dw = upload(w, p), dx = upload(x, p);
                auto dy = beta == 1.0f ? upload(y0) : poisoned(y0.size());
                cuda::project(handle, cuda::DeviceMatrix{dw.data(), rows, cols, p, std::nullopt}, dx.data(), n, dy.as<float>(), beta);
                // Same rounded inputs and float32 accumulation on both sides: only the order of the
                // `cols` additions differs, an error that grows with sqrt(cols).
                const double tol = (p == Precision::Fp32 ? 1e-5 : 1e-4) * std::sqrt(double(cols));
                check_close(label("project " + std::to_string(rows) + "x" + std::to_string(cols) + " n=" +
                                      std::to_string(n) + " beta=" + std::to_string(int(beta)),
                                  p),
                            download(dy.data(), y0.size()), expected, tol, 1e-5);
            }
        }
    }
    cublasDestroy(handle);
}

void attention_and_probe_match()
{
    struct Shape {
        int heads, kv_heads, hd;
    };
    // In fp16, head_dim 64 and 128 run on the tensor cores (tensor_core_attention_fits), 9/3
    // being SmolLM2's grouping; the others on the float32 kernel.
    const Shape shapes[] = {{8, 4, 8}, {4, 1, 64}, {9, 3, 64}, {8, 8, 128}, {8, 1, 40}, {6, 2, 256}, {2, 2, 6}};
    for (Precision p : kPrecisions)
        for (const Shape& s : shapes)
            for (int len : {1, 16, 17, 50, 300})
                for (int n : {1, len / 3 + 1, len}) {
                    if (n > len)
                        continue;
                    FilledStore filled(rng, s.kv_heads * s.hd, p, len);
                    check_attention_against_cpu(rng, filled, len, n, {s.heads, s.kv_heads, s.hd}, p,
                                                label("heads=" + std::to_string(s.heads) + "/" +
                                                          std::to_string(s.kv_heads) + " hd=" + std::to_string(s.hd) +
                                                          " len=" + std::to_string(len) + " n=" + std::to_string(n),
                                                      p));
                }
}

void tensor_core_attention_takes_its_cases()
{
    cuda::KvBlockFormat f16;
    f16.key_type = f16.value_type = KvPrecision::F16;
    for (int hd : {64, 128})
        if (!cuda::tensor_core_attention_fits(Precision::Fp16, f16, hd))
            fail("fp16 entries with head_dim " + std::to_string(hd) + " should take the tensor cores");
    for (int hd : {8, 32, 96, 256})
        if (cuda::tensor_core_attention_fits(Precision::Fp16, f16, hd))
            fail("head_dim " + std::to_string(hd) + " should stay with the float32 kernel");
    cuda::KvBlockFormat q8_keys = f16, q4_values = f16, f32 = f16, f32_q8 = f16;
    q8_keys.key_type = KvPrecision::Q8;
    q4_values.value_type = KvPrecision::Q4;
    f32.key_type = f32.value_type = KvPrecision::F32;
    f32_q8.key_type = KvPrecision::F32;
    f32_q8.value_type = KvPrecision::Q8;
    if (!cuda::tensor_core_attention_fits(Precision::Fp16, q8_keys, 128) ||
        !cuda::tensor_core_attention_fits(Precision::Fp16, q4_values, 64))
        fail("q8 and q4 entries under fp16 should take the tensor cores");
    if (cuda::tensor_core_attention_fits(Precision::Fp32, f32, 128) ||
        cuda::tensor_core_attention_fits(Precision::Fp32, f32_q8, 128) ||
        cuda::tensor_core_attention_fits(Precision::Fp16, f32, 128))
        fail("float32 should stay with the CUDA cores' kernel");
    bool refused = false;
    try {
        cuda::tensor_core_attention(nullptr, 1, cuda::KvBlockTable{nullptr, f16}, 1, cuda::AttentionDims{1, 1, 96},
                                    nullptr, nullptr, nullptr);
    } catch (const Error& e) {
        refused = std::string(e.what()).find("head_dim 96") != std::string::npos;
    }
    if (!refused)
        fail("tensor_core_attention of head_dim 96 is refused, naming it");
}

void tensor_core_scores_keep_float_precision()
{
    // Queries up to 16 make sharp softmaxes: rounding them to fp16 alone would move the scores
    // by up to about 0.01 and the outputs by several fp16 steps; with the low part added they
    // stay within the float32 kernel's tolerance, and the probe (scores recomputed in float32
    // against the attention's statistics) with them.
    for (const cpu::AttentionShape& s : {cpu::AttentionShape{4, 2, 128}, cpu::AttentionShape{9, 3, 64}})
        for (int len : {90, 200}) {
            FilledStore filled(rng, s.n_kv_heads * s.head_dim, Precision::Fp16, len);
            check_attention_against_cpu(rng, filled, len, len - 10, s, Precision::Fp16,
                                        "sharp, hd=" + std::to_string(s.head_dim) + " len=" + std::to_string(len),
                                        16.0f);
        }
}

void attention_kernels_agree()
{
    // The two kernels attention() chooses between, on the cases both take (the benchmark times
    // them side by side): outputs within an fp16 step (each rounds its own, and the tensor
    // cores' probabilities, and q8/q4 values, are fp16), the statistics as float32 sums in
    // another order.
    const KvTypes kinds[] = {KvTypes{KvPrecision::F16}, KvTypes{KvPrecision::Q8, KvPrecision::Q4},
                             KvTypes{KvPrecision::Q4, KvPrecision::Q8}};
    for (const cpu::AttentionShape& s : {cpu::AttentionShape{8, 2, 128}, cpu::AttentionShape{9, 3, 64}})
        for (int n : {150, 40})
            for (const KvTypes& types : kinds) {
                const int len = 150, q_width = s.n_heads * s.head_dim;
                FilledStore filled(rng, s.n_kv_heads * s.head_dim, Precision::Fp16, len, 16, types);
                const auto dq = upload(random_floats(rng, size_t(n) * q_width, -2.0f, 2.0f));
                const cuda::AttentionDims dims{s.n_heads, s.n_kv_heads, s.head_dim};
                const cuda::KvBlockTable table = filled.store.table();
                std::vector<float> outputs[2], stats[2];
                for (int kernel = 0; kernel < 2; ++kernel) {
                    const auto out = poisoned(size_t(n) * q_width, Precision::Fp16);
                    const auto st = poisoned(size_t(n) * s.n_heads * 2);
                    if (kernel == 0)
                        cuda::tensor_core_attention(dq.as<float>(), n, table, len, dims, out.data(), st.as<float>(),
                                                    nullptr);
                    else
                        cuda::cuda_core_attention(dq.as<float>(), n, table, len, dims, Precision::Fp16, out.data(),
                                                  st.as<float>(), nullptr);
                    outputs[kernel] = download(out.data(), size_t(n) * q_width, Precision::Fp16);
                    stats[kernel] = download(st.data(), size_t(n) * s.n_heads * 2);
                }
                const std::string what = "hd=" + std::to_string(s.head_dim) + " n=" + std::to_string(n) +
                                         " keys " + kv_precision_name(types.k) + " values " +
                                         kv_precision_name(types.v);
                check_close("tensor vs CUDA cores, outputs " + what, outputs[0], outputs[1], 2 * kHalfStep, 0.0);
                check_close("tensor vs CUDA cores, stats " + what, stats[0], stats[1], 1e-5, 1e-5);
            }
}

void probe_without_rows_is_zero()
{
    FilledStore filled(rng, 16, Precision::Fp16, 40);
    const auto q = random_floats(rng, size_t(3) * 32);
    auto dq = upload(q);
    auto out = poisoned(q.size(), Precision::Fp16);
    auto stats = poisoned(3 * 2 * 2);
    auto probe_out = poisoned(40);
    const cuda::AttentionDims dims{2, 1, 16};
    cuda::attention(dq.as<float>(), 3, filled.store.table(), 40, dims, Precision::Fp16, out.data(), stats.as<float>(),
                    nullptr);
    auto partials = poisoned(cuda::probe_partial_floats(dims, 40));
    cuda::attention_probe(dq.as<float>(), 3, filled.store.table(), 40, dims, Precision::Fp16, stats.as<float>(), 3,
                          nullptr, partials.as<float>(), probe_out.as<float>(), nullptr);
    check_close("probe with first_row == rows", download(probe_out.data(), 40), std::vector<float>(40, 0.0f), 0.0, 0.0);
}

void probe_has_the_same_bits_every_run()
{
    // Many KV heads and rows: float sums added in launch order would differ between runs (the
    // emulation runs blocks in another order every other launch, a GPU in any order). Heads of
    // 32 take the CUDA cores' probe, heads of 64 in fp16 the tensor cores'.
    const int len = 200, n = 150;
    for (const cuda::AttentionDims& dims : {cuda::AttentionDims{16, 16, 32}, cuda::AttentionDims{8, 8, 64}}) {
        for (Precision p : kPrecisions) {
            FilledStore filled(rng, dims.n_kv_heads * dims.head_dim, p, len);
            auto dq = upload(random_floats(rng, size_t(n) * dims.n_heads * dims.head_dim, -2.0f, 2.0f));
            auto weights = upload(random_floats(rng, size_t(n), 0.1f, 2.0f));
            auto out = poisoned(size_t(n) * dims.n_heads * dims.head_dim, p);
            auto stats = poisoned(size_t(n) * dims.n_heads * 2);
            auto partials = poisoned(cuda::probe_partial_floats(dims, len));
            const cuda::KvBlockTable table = filled.store.table();
            std::vector<float> first;
            for (int run = 0; run < 3; ++run) {
                // Three launches a run (attention, probe, sum), so the emulation's block order
                // flips from run to run.
                cuda::attention(dq.as<float>(), n, table, len, dims, p, out.data(), stats.as<float>(), nullptr);
                auto probe_out = poisoned(size_t(len));
                cuda::attention_probe(dq.as<float>(), n, table, len, dims, p, stats.as<float>(), 0, weights.as<float>(),
                                      partials.as<float>(), probe_out.as<float>(), nullptr);
                const std::vector<float> got = download(probe_out.data(), size_t(len));
                if (run == 0)
                    first = got;
                else if (std::memcmp(got.data(), first.data(), got.size() * sizeof(float)) != 0)
                    fail(label("probe sums differ between runs, head_dim " + std::to_string(dims.head_dim), p));
            }
        }
    }
}

void shift_keys_matches()
{
    const int kv_heads = 2, hd = 64, len = 37;
    for (Precision p : kPrecisions)
        for (RopeLayout layout : {RopeLayout::Interleaved, RopeLayout::RotateHalf}) {
            FilledStore filled(rng, kv_heads * hd, p, len);
            std::vector<int32_t> shifts = random_positions(size_t(len), 600);
            for (int32_t& s : shifts)
                s -= 300;  // renumbering moves positions down as well as up
            std::vector<float> expected = filled.keys;
            cpu::rope(expected.data(), len, kv_heads, hd, shifts, 10000.0f, layout);
            expected = rounded(expected, p);
            const int32_t* device_shifts = filled.memory.upload_entry_ints(shifts);
            cuda::shift_keys(filled.store.table(), len, kv_heads, hd, device_shifts, 10000.0f, layout, nullptr);
            const auto contents = filled.store.download();
            // fp16: both sides round the rotated key, possibly to neighbouring halves (2^-10 relative).
            check_close(label("shift_keys", p), contents.keys, expected, p == Precision::Fp32 ? 1e-6 : kHalfStep,
                        p == Precision::Fp32 ? 1e-5 : 2 * kHalfStep);
            check_close(label("shift_keys leaves values", p), contents.values, filled.values, 0.0, 0.0);
        }
}

// Raw bytes of a device buffer.
std::vector<std::byte> download_bytes(const void* device, size_t bytes)
{
    gpu_test::sync();
    std::vector<std::byte> out(bytes);
    cudaMemcpy(out.data(), device, bytes, cudaMemcpyDeviceToHost);
    gpu_test::sync();
    return out;
}

// A host view's values as the device stores them in `p`: decoded, then rounded to nearest
// even for fp16 (what an upload does).
std::vector<std::byte> as_stored(const WeightView& v, Precision p)
{
    std::vector<float> values(static_cast<size_t>(v.elements()));
    tensor_type_traits(v.type).to_float(v.data, values.data(), v.elements());
    std::vector<std::byte> out(values.size() * cuda::element_bytes(p));
    if (p == Precision::Fp32) {
        std::memcpy(out.data(), values.data(), out.size());
    } else {
        for (size_t i = 0; i < values.size(); ++i) {
            const uint16_t h = fp32_to_fp16(values[i]);
            std::memcpy(out.data() + 2 * i, &h, 2);
        }
    }
    return out;
}

size_t differing(const std::vector<std::byte>& a, const std::vector<std::byte>& b)
{
    if (a.size() != b.size())
        return std::max(a.size(), b.size());
    size_t count = 0;
    for (size_t i = 0; i < a.size(); ++i)
        count += a[i] != b[i];
    return count;
}

// Generated weights made on the device (synthetic_ops.h, and DeviceWeights for views without
// data) equal the host generator's, stored in each precision, bit for bit: for every storage
// type the host generator offers, through the kernel into a poisoned buffer, and through a
// whole DeviceWeights against the upload of the host-generated model.
void synthetic_generation_matches_host()
{
    const ModelConfig c{.name = "synthetic", .n_vocab = 301, .dim = 72, .ffn_dim = 100, .n_layers = 2, .n_heads = 4,
                        .n_kv_heads = 2, .head_dim = 18, .context_length = 64};
    const uint64_t seed = 20261121;
    for (TensorType type : {TensorType::F32, TensorType::F16, TensorType::BF16}) {
        const ModelWeights host = generate_model_weights(c, type, seed, true);
        const ModelWeights off_host = generate_model_weights(c, type, seed, false);
        for (Precision p : kPrecisions) {
            const std::string what = label(std::string(tensor_type_traits(type).name) + " generated", p);

            const WeightView& w_up = host.layers[1].w_up;
            auto out = poisoned(size_t(w_up.elements()), p);
            cuda::fill_synthetic(out.data(), p, w_up.elements(), type,
                                 synthetic::tensor_key(seed, synthetic::layer_tensor(1, 7)),
                                 synthetic::matrix_scale(w_up.cols), nullptr);
            const size_t bad = differing(download_bytes(out.data(), out.bytes()), as_stored(w_up, p));
            GPU_CHECK(bad == 0, what + " w_up: " + std::to_string(bad) + " bytes differ");

            const cuda::DeviceWeights uploaded(host, p);
            const cuda::DeviceWeights generated(off_host, p);
            GPU_CHECK(generated.bytes() == uploaded.bytes(), what);
            const auto same_matrix = [&](const cuda::DeviceMatrix& a, const cuda::DeviceMatrix& b, const WeightView& v) {
                const size_t bytes = size_t(v.elements()) * cuda::element_bytes(p);
                const auto expected = as_stored(v, p);
                GPU_CHECK(differing(download_bytes(a.data, bytes), expected) == 0, what + " uploaded " + v.name);
                GPU_CHECK(differing(download_bytes(b.data, bytes), expected) == 0, what + " generated " + v.name);
            };
            const auto same_norm = [&](const float* a, const float* b, const WeightView& v) {
                const auto expected = as_stored(v, Precision::Fp32);
                GPU_CHECK(differing(download_bytes(a, expected.size()), expected) == 0, what + " uploaded " + v.name);
                GPU_CHECK(differing(download_bytes(b, expected.size()), expected) == 0, what + " generated " + v.name);
            };
            same_matrix(uploaded.token_embedding(), generated.token_embedding(), host.token_embedding);
            same_matrix(uploaded.output(), generated.output(), host.output);
            same_norm(uploaded.output_norm(), generated.output_norm(), host.output_norm);
            for (int l = 0; l < c.n_layers; ++l) {
                const cuda::DeviceLayer &u = uploaded.layer(l), &g = generated.layer(l);
                const LayerWeights& h = host.layers[size_t(l)];
                same_norm(u.attn_norm, g.attn_norm, h.attn_norm);
                same_norm(u.ffn_norm, g.ffn_norm, h.ffn_norm);
                same_matrix(u.wq, g.wq, h.wq);
                same_matrix(u.wk, g.wk, h.wk);
                same_matrix(u.wv, g.wv, h.wv);
                same_matrix(u.wo, g.wo, h.wo);
                same_matrix(u.w_gate, g.w_gate, h.w_gate);
                same_matrix(u.w_up, g.w_up, h.w_up);
                same_matrix(u.w_down, g.w_down, h.w_down);
            }
        }
    }
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<TestCase> tests{
        {"rms_norm_matches", rms_norm_matches},
        {"rope_matches", rope_matches},
        {"swiglu_matches", swiglu_matches},
        {"embed_and_gather_match", embed_and_gather_match},
        {"projection_matches", projection_matches},
        {"attention_and_probe_match", attention_and_probe_match},
        {"tensor_core_attention_takes_its_cases", tensor_core_attention_takes_its_cases},
        {"tensor_core_scores_keep_float_precision", tensor_core_scores_keep_float_precision},
        {"attention_kernels_agree", attention_kernels_agree},
        {"probe_without_rows_is_zero", probe_without_rows_is_zero},
        {"probe_has_the_same_bits_every_run", probe_has_the_same_bits_every_run},
        {"shift_keys_matches", shift_keys_matches},
        {"synthetic_generation_matches_host", synthetic_generation_matches_host},
    };
    for (TestCase& t : quant_kernel_tests())
        tests.push_back(std::move(t));
    for (TestCase& t : half_matvec_tests())
        tests.push_back(std::move(t));
    for (TestCase& t : int8_rows_tests())
        tests.push_back(std::move(t));
    for (TestCase& t : memory_tests())
        tests.push_back(std::move(t));
    for (TestCase& t : work_stream_tests())
        tests.push_back(std::move(t));
    for (TestCase& t : decode_attention_tests())
        tests.push_back(std::move(t));
    for (TestCase& t : kv_quantized_tests())
        tests.push_back(std::move(t));
    for (TestCase& t : top_logits_tests())
        tests.push_back(std::move(t));
    return run_all("test_gpu_kernels", tests, {argv + 1, argv + argc});
}
