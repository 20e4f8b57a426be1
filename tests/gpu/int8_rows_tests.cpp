// Activations rounded to int8 for the fp16 matvec (int8_rows.h), part of test_gpu_kernels:
//
// - round_rows_int8 must equal the CPU's int8 rounding (core/backend/int8_activations.h) bit
//   for bit, ties to even included, and each block's scaled sum must be scale * sum q;
// - rms_norm, swiglu and decode_attention's merge asked to round their output as well must
//   write exactly what round_rows_int8 makes of that output, in both precisions, and the same
//   output as without; mismatched rows are refused.
#include "int8_rows_tests.h"

#include <cmath>
#include <cstring>
#include <deque>

#include "backend/int8_activations.h"
#include "cuda_check.h"
#include "decode_attention.h"
#include "elementwise_ops.h"
#include "filled_store.h"
#include "int8_rows.h"
#include "model/tensor_type.h"

using namespace pyramid;
using namespace pyramid::gpu_test;
using cuda::Precision;

std::vector<float> cpu_int8_rounded(const std::vector<float>& x, int n, int64_t cols)
{
    cpu::Int8Activations a;
    cpu::quantize_activations(x.data(), n, cols, a);
    std::vector<float> out(x.size());
    for (int t = 0; t < n; ++t)
        for (int64_t c = 0; c < cols; ++c)
            out[size_t(t * cols + c)] = a.rounded(t, c);
    return out;
}

namespace {

std::mt19937 rng(20261124);
constexpr int kBlockEntries = 16;  // FilledStore's

struct HostInt8Rows {
    std::vector<int8_t> q;
    std::vector<float2> factors;
};

HostInt8Rows download_rows(const cuda::Int8Rows& r, int n)
{
    HostInt8Rows h{std::vector<int8_t>(size_t(n * r.cols)), std::vector<float2>(size_t(n * r.cols / 32))};
    cuda::check(cudaMemcpy(h.q.data(), r.q, h.q.size(), cudaMemcpyDeviceToHost), "download q");
    cuda::check(cudaMemcpy(h.factors.data(), r.factors, h.factors.size() * sizeof(float2), cudaMemcpyDeviceToHost),
                "download factors");
    return h;
}

cuda::DeviceBuffer poisoned_rows(int n, int64_t cols)
{
    cuda::DeviceBuffer buffer(cuda::int8_rows_bytes(n, cols), "int8 rows");
    cuda::check(cudaMemset(buffer.data(), 0x55, buffer.bytes()), "poison");
    return buffer;
}

// Rows with what the rounding must get right: an all-zero block, ties at .5 (a block whose
// largest magnitude is 127 has scale 1), fp16 subnormals, and random values of every magnitude.
void int8_rounding_matches_cpu()
{
    const int n = 3;
    const int64_t cols = 320;
    for (Precision p : {Precision::Fp32, Precision::Fp16}) {
        std::vector<float> x = random_floats(rng, size_t(n * cols), -3.0f, 3.0f);
        std::fill(x.begin(), x.begin() + 32, 0.0f);
        const float ties[] = {127.0f, 2.5f, -3.5f, 0.5f, -0.5f, 126.5f, -1.5f, 4.5f};
        for (int i = 0; i < 32; ++i)
            x[size_t(32 + i)] = ties[i % 8];
        for (int i = 0; i < 32; ++i)
            x[size_t(64 + i)] = float(i - 16) * 6e-8f;  // subnormal in fp16
        for (int64_t b = 3; b < n * cols / 32; ++b) {
            const float magnitude = std::ldexp(1.0f, int(b % 20) - 10);
            for (int i = 0; i < 32; ++i)
                x[size_t(b * 32 + i)] *= magnitude;
        }
        x = rounded(x, p);
        cpu::Int8Activations expected;
        cpu::quantize_activations(x.data(), n, cols, expected);

        auto dx = upload(x, p);
        auto buffer = poisoned_rows(n, cols);
        const cuda::Int8Rows r = cuda::round_rows_int8(dx.data(), p, n, cols, buffer.data(), nullptr);
        const auto [q, factors] = download_rows(r, n);
        const std::string what = std::string("int8 rounding [") + cuda::precision_name(p) + "]";
        GPU_CHECK(r.cols == cols, what + ": cols");
        bool refused = false;  // the matvecs' 8-byte loads need an aligned buffer
        try {
            (void)cuda::int8_rows_in(static_cast<std::byte*>(buffer.data()) + 8, n, cols);
        } catch (const Error&) {
            refused = true;
        }
        GPU_CHECK(refused, what + ": a buffer 8 bytes off 16-byte alignment was accepted");
        GPU_CHECK(q == expected.q, what + ": the int8 values differ from the CPU's");
        for (size_t b = 0; b < factors.size(); ++b) {
            int sum = 0;
            for (int i = 0; i < 32; ++i)
                sum += expected.q[b * 32 + size_t(i)];
            const float scale = expected.scale[b];
            if (std::memcmp(&factors[b].x, &scale, sizeof scale) != 0 || factors[b].y != scale * float(sum)) {
                fail(what + ": block " + std::to_string(b) + " has scale " + std::to_string(factors[b].x) + " and sum " +
                     std::to_string(factors[b].y) + ", expected " + std::to_string(scale) + " and " +
                     std::to_string(scale * float(sum)));
                break;
            }
        }
    }
}


// The same bytes, quants and factors, as round_rows_int8 makes of `out`.
void check_same_rounding(const std::string& what, const cuda::Int8Rows& beside, const void* out, Precision p, int n)
{
    auto buffer = poisoned_rows(n, beside.cols);
    const cuda::Int8Rows again = cuda::round_rows_int8(out, p, n, beside.cols, buffer.data(), nullptr);
    const HostInt8Rows a = download_rows(beside, n), b = download_rows(again, n);
    GPU_CHECK(a.q == b.q, what + ": int8 values differ from round_rows_int8's");
    GPU_CHECK(std::memcmp(a.factors.data(), b.factors.data(), a.factors.size() * sizeof(float2)) == 0,
              what + ": block factors differ from round_rows_int8's");
}

void norm_and_swiglu_round_beside_their_output()
{
    for (Precision p : {Precision::Fp32, Precision::Fp16}) {
        const std::string tag = std::string(" [") + cuda::precision_name(p) + "]";
        for (int n : {1, 3})
            for (int dim : {64, 288, 4096}) {
                const auto x = random_floats(rng, size_t(n) * dim, -3.0f, 3.0f);
                const auto w = random_floats(rng, size_t(dim), 0.5f, 1.5f);
                auto dx = upload(x), dw = upload(w);
                auto out = poisoned(x.size(), p);
                auto buffer = poisoned_rows(n, dim);
                const cuda::Int8Rows beside = cuda::int8_rows_in(buffer.data(), n, dim);
                cuda::rms_norm(dx.as<float>(), dw.as<float>(), n, dim, 1e-5f, out.data(), p, nullptr, beside);
                check_same_rounding("rms_norm n=" + std::to_string(n) + " dim=" + std::to_string(dim) + tag, beside,
                                    out.data(), p, n);
            }
        for (int n : {1, 5})
            for (int ffn : {96, 11008}) {
                const size_t count = size_t(n) * size_t(ffn);
                auto dg = upload(random_floats(rng, count, -6.0f, 6.0f)), du = upload(random_floats(rng, count));
                auto out = poisoned(count, p);
                auto buffer = poisoned_rows(n, ffn);
                const cuda::Int8Rows beside = cuda::int8_rows_in(buffer.data(), n, ffn);
                cuda::swiglu(dg.as<float>(), du.as<float>(), int64_t(count), out.data(), p, nullptr, beside);
                check_same_rounding("swiglu n=" + std::to_string(n) + " ffn=" + std::to_string(ffn) + tag, beside,
                                    out.data(), p, n);
            }
    }
    // Rows that do not fit the output are refused before anything runs.
    auto dx = upload(random_floats(rng, 64)), dw = upload(random_floats(rng, 64));
    auto out = poisoned(64);
    auto buffer = poisoned_rows(1, 96);
    const cuda::Int8Rows wrong = cuda::int8_rows_in(buffer.data(), 1, 96);
    for (int which = 0; which < 2; ++which) {
        bool threw = false;
        try {
            if (which == 0)
                cuda::rms_norm(dx.as<float>(), dw.as<float>(), 1, 64, 1e-5f, out.data(), Precision::Fp32, nullptr,
                               wrong);
            else
                cuda::swiglu(dx.as<float>(), dw.as<float>(), 64, out.data(), Precision::Fp32, nullptr, wrong);
        } catch (const Error& e) {
            threw = std::string(e.what()).find("int8 rows of 96 values") != std::string::npos ||
                    std::string(e.what()).find("not whole rows of 96") != std::string::npos;
        }
        GPU_CHECK(threw, std::string(which == 0 ? "rms_norm" : "swiglu") + " refuses int8 rows of another width");
    }
}

// Three sequences (a lone entry, two splits, three) decoding into rows 2, 0, 1: the merge's
// rounding of each head's blocks against round_rows_int8 of the output, for head_dim 32 to 256.
void decode_merge_rounds_beside_its_output()
{
    const int heads = 4, kv_heads = 2;
    const std::vector<int> lens{1, 200, 300};
    for (Precision p : {Precision::Fp32, Precision::Fp16})
        for (int hd : {32, 64, 96, 128, 256}) {
            const int kv_dim = kv_heads * hd, cols = heads * hd, n = int(lens.size());
            std::deque<FilledStore> caches;
            std::vector<cuda::DecodeSequence> sequences;
            for (int s = 0; s < n; ++s) {
                cuda::DecodeSequence d;
                d.blocks = caches.emplace_back(rng, kv_dim, p, lens[size_t(s)]).store.table().blocks;
                d.len = lens[size_t(s)];
                d.row = (s + 2) % n;
                sequences.push_back(d);
            }
            const cuda::DecodeLayout layout = cuda::lay_out_decode_batch(sequences, heads);
            const auto dq = upload(random_floats(rng, size_t(n) * cols, -2.0f, 2.0f));
            const auto descriptors = upload_raw(sequences);
            const auto partial_stats = poisoned(size_t(layout.splits) * heads * 2);
            const auto partial_out = poisoned(size_t(layout.splits) * heads * hd);
            const cuda::DecodeBatch batch{descriptors.as<const cuda::DecodeSequence>(), layout,
                                          caches.front().memory.geometry().format()};
            const cuda::DecodeScratch scratch{partial_stats.as<float>(), partial_out.as<float>(), nullptr};
            auto plain = poisoned(size_t(n) * cols, p), out = poisoned(size_t(n) * cols, p);
            auto buffer = poisoned_rows(n, cols);
            const cuda::Int8Rows beside = cuda::int8_rows_in(buffer.data(), n, cols);
            cuda::decode_attention(dq.as<float>(), batch, {heads, kv_heads, hd}, p, plain.data(), nullptr, scratch,
                                   nullptr, nullptr);
            cuda::decode_attention(dq.as<float>(), batch, {heads, kv_heads, hd}, p, out.data(), nullptr, scratch,
                                   nullptr, nullptr, beside);
            const std::string what = "decode merge hd=" + std::to_string(hd) + " [" + cuda::precision_name(p) + "]";
            const size_t bytes = size_t(n) * cols * cuda::element_bytes(p);
            std::vector<std::byte> a(bytes), b(bytes);
            cuda::check(cudaMemcpy(a.data(), plain.data(), bytes, cudaMemcpyDeviceToHost), "download");
            cuda::check(cudaMemcpy(b.data(), out.data(), bytes, cudaMemcpyDeviceToHost), "download");
            GPU_CHECK(a == b, what + ": rounding changed the output");
            check_same_rounding(what, beside, out.data(), p, n);
        }
    // Rows of another width, or head_dim not a multiple of 32, are refused.
    for (int hd : {16, 32}) {
        auto buffer = poisoned_rows(1, 96);
        bool threw = false;
        try {
            const cuda::KvBlockFormat format = cuda::KvGeometry{2 * hd, kBlockEntries, KvPrecision::F32}.format();
            const cuda::DecodeLayout one{1, 1, cuda::decode_grid_length(1), 1, 0};
            cuda::decode_attention(nullptr, {nullptr, one, format}, {4, 2, hd}, Precision::Fp32, nullptr, nullptr, {},
                                   nullptr, nullptr, cuda::int8_rows_in(buffer.data(), 1, 96));
        } catch (const Error& e) {
            threw = std::string(e.what()).find("int8 rows of 96 values") != std::string::npos;
        }
        GPU_CHECK(threw, "decode_attention refuses int8 rows of 96 values for 4 heads of " + std::to_string(hd));
    }
}

} // namespace

std::vector<TestCase> int8_rows_tests()
{
    return {
        {"int8_rounding_matches_cpu", int8_rounding_matches_cpu},
        {"norm_and_swiglu_round_beside_their_output", norm_and_swiglu_round_beside_their_output},
        {"decode_merge_rounds_beside_its_output", decode_merge_rounds_beside_its_output},
    };
}
