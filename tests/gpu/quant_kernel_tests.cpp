// The quantized-weight kernels of the CUDA backend (part of test_gpu_kernels), for every block
// type the backend keeps quantized (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K ... Q6_K):
//
// - dequantization (tiles, fp32 and fp16 outputs, and gathered embedding rows; Q4_0, Q8_0,
//   Q4_K, Q5_K and Q6_K through their line kernels and, off alignment, the block decoders) must
//   equal core's to_float decoders (bit-exact to ggml) bit for bit;
// - the matvec path (n = 1, 3, 8) and the tile GEMM path (n = 9, 64, 200, with a scratch that
//   forces several tiles and a partial last one) against a float64 reference over the CPU's
//   dequantized weights, at odd row counts, rows not a multiple of the kernel's four rows per
//   block, and rows of 3 to 33 blocks (a warp covers 256 elements per step, so some lanes idle).
//   The fp16 matvec multiplies the activations rounded to int8, so its reference does too: its
//   integer products are exact, and only the float32 scaling and summation differ.
//
// Blocks are random bytes with their fp16 scale fields set to finite values (small, zero and
// fp16 subnormals among them), so every bit pattern of the quants is exercised.
//
// Tolerance of the projections: both sides multiply the same float32 (or, on the fp16 GEMM
// path, fp16-rounded) weights with the same rounded inputs; only float32 summation differs.
// A sum of k terms in float32 is off by at most about (k / 32 + 8) * 2^-24 * sum |w x| in the
// kernel's order (32 lane sums, then a 5-step shuffle tree) and similarly for cuBLAS, so each
// value must be within 1e-5 * sum_c |w[r, c] x[t, c]| for k up to 8448 elements per row.
#include "quant_kernel_tests.h"

#include <cublas_v2.h>

#include <algorithm>
#include <functional>
#include <cmath>

#include "cuda_check.h"
#include "dequantize_ops.h"
#include "gpu_test.h"
#include "int8_rows_tests.h"
#include "overlap_checks.h"
#include "projection_reference.h"
#include "model/tensor_type.h"
#include "projection.h"
#include "quant_matvec.h"

using namespace pyramid;
using namespace pyramid::gpu_test;
using cuda::Precision;

namespace {

std::mt19937 rng(20261122);

constexpr TensorType kQuantTypes[] = {TensorType::Q4_0, TensorType::Q4_1, TensorType::Q5_0, TensorType::Q5_1,
                                      TensorType::Q8_0, TensorType::Q2_K, TensorType::Q3_K, TensorType::Q4_K,
                                      TensorType::Q5_K, TensorType::Q6_K};

std::string type_name(TensorType t) { return std::string(tensor_type_traits(t).name); }

// A finite fp16 scale: mostly in [-0.05, 0.05], sometimes 0 or an fp16 subnormal.
uint16_t random_scale()
{
    const int kind = std::uniform_int_distribution<int>(0, 15)(rng);
    if (kind == 0)
        return 0;
    if (kind == 1)
        return static_cast<uint16_t>(std::uniform_int_distribution<int>(1, 0x3ff)(rng));  // subnormal
    return fp32_to_fp16(std::uniform_real_distribution<float>(-0.05f, 0.05f)(rng));
}

// `rows` rows of `cols` elements of type t: random quants, finite scales.
std::vector<uint8_t> random_blocks(TensorType t, int64_t rows, int64_t cols)
{
    const auto& traits = tensor_type_traits(t);
    const size_t blocks = static_cast<size_t>(rows * cols / traits.block_elems);
    std::vector<uint8_t> bytes(blocks * traits.block_bytes);
    std::uniform_int_distribution<int> byte(0, 255);
    for (uint8_t& b : bytes)
        b = static_cast<uint8_t>(byte(rng));
    for (size_t i = 0; i < blocks; ++i)
        for (const int16_t offset : traits.scale_offsets) {
            if (offset < 0)
                continue;
            const uint16_t h = random_scale();
            bytes[i * traits.block_bytes + static_cast<size_t>(offset)] = static_cast<uint8_t>(h & 0xff);
            bytes[i * traits.block_bytes + static_cast<size_t>(offset) + 1] = static_cast<uint8_t>(h >> 8);
        }
    return bytes;
}

std::vector<float> cpu_decode(TensorType t, const std::vector<uint8_t>& blocks, int64_t rows, int64_t cols)
{
    std::vector<float> out(static_cast<size_t>(rows * cols));
    tensor_type_traits(t).to_float(blocks.data(), out.data(), rows * cols);
    return out;
}

// Element counts per row: a few blocks (lanes of the warp idle) and many (several steps).
std::vector<int64_t> test_cols(TensorType t)
{
    return tensor_type_traits(t).block_elems == 32 ? std::vector<int64_t>{96, 1056} : std::vector<int64_t>{768, 2304};
}

void dequantize_is_bit_exact()
{
    for (TensorType t : kQuantTypes)
        for (int64_t cols : test_cols(t)) {
            const int64_t rows = 7;
            const auto blocks = random_blocks(t, rows, cols);
            const auto expected = cpu_decode(t, blocks, rows, cols);
            auto dw = upload_blocks(t, blocks);
            const std::string name = type_name(t) + " cols=" + std::to_string(cols);

            auto out = poisoned(expected.size());
            cuda::dequantize_rows(t, dw.data(), cols, 0, rows, out.data(), Precision::Fp32, nullptr);
            check_bits("dequantize " + name, download(out.data(), expected.size()), expected);

            // Blocks two bytes off 16-byte alignment: the block decoders instead of the line
            // kernels (Q4_0, Q8_0, Q4_K, Q5_K, Q6_K), the same bits.
            const int64_t block_count = rows * cols / tensor_type_traits(t).block_elems;
            cuda::DeviceBuffer shifted(2 + device_blocks_bytes(t, block_count), "test blocks");
            cuda::upload_blocks(t, blocks.data(), block_count, static_cast<uint8_t*>(shifted.data()) + 2,
                                "test blocks");
            auto decoded = poisoned(expected.size());
            cuda::dequantize_rows(t, static_cast<uint8_t*>(shifted.data()) + 2, cols, 0, rows, decoded.data(),
                                  Precision::Fp32, nullptr);
            check_bits("dequantize, blocks off alignment, " + name, download(decoded.data(), expected.size()),
                       expected);

            // Rows 2..6 alone, to fp16: the host's round-to-nearest-even of the same floats.
            const int64_t first = 2, count = 5;
            auto half = poisoned(size_t(count * cols), Precision::Fp16);
            cuda::dequantize_rows(t, dw.data(), cols, first, count, half.data(), Precision::Fp16, nullptr);
            const std::vector<float> tail(expected.begin() + first * cols, expected.end());
            check_bits("dequantize to fp16 " + name, download(half.data(), tail.size(), Precision::Fp16),
                       rounded(tail, Precision::Fp16));

            const std::vector<int32_t> ids{6, 0, 3, 3, 5};
            std::vector<float> gathered;
            for (int32_t id : ids)
                gathered.insert(gathered.end(), expected.begin() + id * cols, expected.begin() + (id + 1) * cols);
            auto dids = upload_raw(ids);
            auto rows_out = poisoned(gathered.size());
            cuda::dequantize_gathered_rows(t, dw.data(), cols, dids.as<int32_t>(), int(ids.size()),
                                           rows_out.as<float>(), nullptr);
            check_bits("gathered rows " + name, download(rows_out.data(), gathered.size()), gathered);
        }
    // The kernel writes 16 bytes at a time: an output off that alignment is refused, by name.
    const auto blocks = upload_blocks(TensorType::Q8_0, random_blocks(TensorType::Q8_0, 1, 32));
    auto out = poisoned(40);
    bool refused = false;
    try {
        cuda::dequantize_rows(TensorType::Q8_0, blocks.data(), 32, 0, 1, out.as<float>() + 1, Precision::Fp32, nullptr);
    } catch (const Error& e) {
        refused = std::string(e.what()).find("16-byte aligned") != std::string::npos;
    }
    GPU_CHECK(refused, "a misaligned dequantize output is refused");
    GPU_CHECK(!cuda::stays_quantized(TensorType::F16) && !cuda::stays_quantized(TensorType::BF16) &&
                  !cuda::stays_quantized(TensorType::F32) && cuda::stays_quantized(TensorType::Q4_K),
              "stays_quantized names exactly the block types");
}

// Every n through project(): 1, 3, 8 take the matvec kernel, 9, 64, 200 the tile GEMM with a
// scratch of five rows (several tiles, a partial last one) and, for n = 64, one big enough for
// the whole matrix. beta = 1 adds to random y; beta = 0 writes over NaN.
void quantized_projection_matches()
{
    cublasHandle_t handle = nullptr;
    cuda::check(cublasCreate(&handle), "cublasCreate");
    for (Precision p : {Precision::Fp32, Precision::Fp16}) {
        cuda::check(cublasSetMathMode(handle, p == Precision::Fp32 ? CUBLAS_PEDANTIC_MATH : CUBLAS_DEFAULT_MATH),
                    "math mode");
        for (TensorType t : kQuantTypes)
            for (int64_t cols : test_cols(t)) {
                const int64_t rows = cols > 1000 ? 37 : 203;
                const auto blocks = random_blocks(t, rows, cols);
                const auto w = cpu_decode(t, blocks, rows, cols);
                auto dw = upload_blocks(t, blocks);
                const cuda::DeviceMatrix matrix{dw.data(), rows, cols, p, t};
                const size_t row_bytes = size_t(cols) * cuda::element_bytes(p);
                cuda::DeviceBuffer small(5 * row_bytes + 3, "test scratch");
                cuda::DeviceBuffer whole(size_t(rows) * row_bytes, "test scratch");
                for (int n : {1, 3, 8, 9, 64, 200}) {
                    const auto x = rounded(random_floats(rng, size_t(n * cols)), p);
                    const auto y0 = random_floats(rng, size_t(n * rows), -4.0f, 4.0f);
                    // The GEMM path multiplies fp16-rounded weights in fp16; the matvec path the exact
                    // ones, in fp16 with the activations rounded to int8.
                    const bool tiles = n > cuda::kMaxMatvecRows;
                    const bool int8 = !tiles && p == Precision::Fp16;
                    const auto& w_used = tiles && p == Precision::Fp16 ? rounded(w, p) : w;
                    const auto& x_used = int8 ? cpu_int8_rounded(x, n, cols) : x;
                    auto dx = upload(x, p);
                    for (const cuda::DeviceBuffer* scratch : {&small, &whole}) {
                        if (scratch == &whole && n != 64)
                            continue;
                        for (float beta : {0.0f, 1.0f}) {
                            auto dy = beta == 1.0f ? upload(y0) : poisoned(y0.size());
                            cuda::project(handle, matrix, dx.data(), n, dy.as<float>(), beta,
                                          {scratch->data(), scratch->bytes()});
                            const std::string what = type_name(t) + " " + std::to_string(rows) + "x" +
                                                     std::to_string(cols) + " n=" + std::to_string(n) +
                                                     " beta=" + std::to_string(int(beta)) +
                                                     (scratch == &whole ? " one tile" : "") + " [" +
                                                     cuda::precision_name(p) + "]";
                            const auto y = download(dy.data(), y0.size());
                            check_projection(what, y,
                                             reference(w_used, x_used, rows, cols, n, beta == 1.0f ? &y0 : nullptr));
                            if (!int8 || beta != 0.0f)
                                continue;
                            // Rounded once by the caller (the backend's RMSNorm does it for q, k and v):
                            // the same bits.
                            const cuda::ProjectionScratch s{scratch->data(), scratch->bytes()};
                            const auto rows_for = cuda::int8_rows_for({&matrix}, n, s);
                            GPU_CHECK(bool(rows_for), what + ": int8_rows_for a quantized fp16 matrix");
                            cuda::round_rows_int8(dx.data(), p, n, cols, s.data, nullptr);
                            auto again = poisoned(y0.size());
                            cuda::project(handle, matrix, dx.data(), n, again.as<float>(), 0.0f, s, rows_for);
                            check_bits(what + " rounded by the caller", download(again.data(), y0.size()), y);
                        }
                    }
                }
            }
    }
    cublasDestroy(handle);
}

// project_each of matrices reading one x, neighbours of one type in one matvec launch (at most
// three), gives each y the bits project() gives it alone: lists of one type (words and block
// kernels, four matrices: three together and one), mixed types (only neighbours of one type
// together), rows of 203, 37, 64 and 11, n = 1 and 5, both precisions (fp32: one by one).
void projections_together_equal_one_by_one()
{
    cublasHandle_t handle = nullptr;
    cuda::check(cublasCreate(&handle), "cublasCreate");
    const int64_t cols = 768;
    const int64_t rows[] = {203, 37, 64, 11};
    const std::vector<std::vector<TensorType>> lists = {
        {TensorType::Q4_K, TensorType::Q4_K, TensorType::Q4_K, TensorType::Q4_K},
        {TensorType::Q6_K, TensorType::Q6_K},
        {TensorType::Q4_K, TensorType::Q4_K, TensorType::Q6_K},
        {TensorType::Q8_0, TensorType::Q4_0, TensorType::Q8_0, TensorType::Q8_0}};
    cuda::DeviceBuffer scratch(cuda::int8_rows_bytes(cuda::kMaxMatvecRows, cols), "test scratch");
    for (Precision p : {Precision::Fp32, Precision::Fp16})
        for (const auto& types : lists)
            for (int n : {1, 5}) {
                std::vector<cuda::DeviceBuffer> weights, together, alone;
                std::vector<cuda::DeviceMatrix> matrices;
                for (size_t i = 0; i < types.size(); ++i) {
                    weights.push_back(upload_blocks(types[i], random_blocks(types[i], rows[i], cols)));
                    matrices.push_back({weights.back().data(), rows[i], cols, p, types[i]});
                    together.push_back(poisoned(size_t(n * rows[i])));
                    alone.push_back(poisoned(size_t(n * rows[i])));
                }
                const auto dx = upload(rounded(random_floats(rng, size_t(n * cols)), p), p);
                const cuda::ProjectionScratch s{scratch.data(), scratch.bytes()};
                const auto out = [&](size_t i) { return cuda::ProjectionOutput{&matrices[i], together[i].as<float>()}; };
                if (types.size() == 4)
                    cuda::project_each(handle, {out(0), out(1), out(2), out(3)}, dx.data(), n, s);
                else if (types.size() == 3)
                    cuda::project_each(handle, {out(0), out(1), out(2)}, dx.data(), n, s);
                else
                    cuda::project_each(handle, {out(0), out(1)}, dx.data(), n, s);
                for (size_t i = 0; i < types.size(); ++i) {
                    cuda::project(handle, matrices[i], dx.data(), n, alone[i].as<float>(), 0.0f, s);
                    std::string what = "project_each";
                    for (TensorType t : types)
                        what.append(" ").append(type_name(t));
                    what.append(", matrix ").append(std::to_string(i)).append(" n=").append(std::to_string(n));
                    what.append(" [").append(cuda::precision_name(p)).append("]");
                    check_bits(what, download(together[i].data(), size_t(n * rows[i])),
                               download(alone[i].data(), size_t(n * rows[i])));
                }
            }
    cublasDestroy(handle);
}

// Q4_K's and Q5_K's float matvec reads weights in 32-bit words and activations four at a
// time, their int8 matvec and Q4_0's, Q8_0's and Q6_K's weights in 16-byte lines
// (k4_segments.cuh, block32_lines.cuh, q6k_lines.cuh); weights or activations that start off
// those alignments (weights 2 or 4 bytes into a buffer, an activation row at an odd element)
// must give the same products through the word or line kernels or the block decoders, which
// need only 2-byte alignment (and refuse less). In fp16 the activations are first rounded to
// int8 (into an aligned buffer), so only the weights' alignment matters to the int8 kernels.
// Rows of 512 and 11008 columns (LLaMA-2-7B's ffn_down: 43 K-quant blocks, 344 of 32; a lane of
// the line kernels takes several steps' blocks).
void matvecs_any_alignment()
{
    const int64_t rows = 45;
    const int n = 3;
    for (TensorType type : {TensorType::Q4_0, TensorType::Q8_0, TensorType::Q4_K, TensorType::Q5_K, TensorType::Q6_K})
        for (int64_t cols : {512, 11008}) {
            const auto blocks = random_blocks(type, rows, cols);
            const auto w = cpu_decode(type, blocks, rows, cols);
            const int64_t count = rows * cols / tensor_type_traits(type).block_elems;
            for (Precision p : {Precision::Fp32, Precision::Fp16})
                for (int weight_shift : {0, 2, 4})
                    for (int x_shift : {0, 1}) {
                        cuda::DeviceBuffer dw(size_t(weight_shift) + device_blocks_bytes(type, count),
                                              "test blocks");
                        void* weights = static_cast<uint8_t*>(dw.data()) + weight_shift;
                        cuda::upload_blocks(type, blocks.data(), count, weights, "test blocks");
                        const auto x = rounded(random_floats(rng, size_t(n * cols)), p);
                        std::vector<float> shifted_x(size_t(x_shift), 0.0f);
                        shifted_x.insert(shifted_x.end(), x.begin(), x.end());
                        auto dx = upload(shifted_x, p);
                        const void* x_start =
                            static_cast<const std::byte*>(dx.data()) + x_shift * cuda::element_bytes(p);
                        auto dy = poisoned(size_t(n * rows));
                        cuda::DeviceBuffer buffer(cuda::int8_rows_bytes(n, cols), "int8 rows");
                        if (p == Precision::Fp16) {
                            const cuda::Int8Rows r =
                                cuda::round_rows_int8(x_start, p, n, cols, buffer.data(), nullptr);
                            cuda::quant_matvec_int8(type, weights, rows, cols, r, n, dy.as<float>(), 0.0f, nullptr);
                        } else {
                            cuda::quant_matvec(type, weights, rows, cols, x_start, p, n, dy.as<float>(), 0.0f,
                                               nullptr);
                        }
                        const std::string what = type_name(type) + " " + std::to_string(cols) +
                                                 " columns, weights +" + std::to_string(weight_shift) +
                                                 " bytes, activations +" + std::to_string(x_shift) + " [" +
                                                 cuda::precision_name(p) + "]";
                        check_projection(what, download(dy.data(), size_t(n * rows)),
                                         reference(w, p == Precision::Fp16 ? cpu_int8_rounded(x, n, cols) : x, rows,
                                                   cols, n, nullptr));
                    }
        }
    // Blocks at an odd address are refused: the decoders read their fields 16 bits at a time.
    auto dw = upload_blocks(TensorType::Q6_K, random_blocks(TensorType::Q6_K, 2, 256));
    const auto* odd = static_cast<const uint8_t*>(dw.data()) + 1;
    auto dx = upload(random_floats(rng, 256));
    auto dy = poisoned(256);
    cuda::DeviceBuffer buffer(cuda::int8_rows_bytes(1, 256), "int8 rows");
    const cuda::Int8Rows r = cuda::round_rows_int8(dx.data(), Precision::Fp32, 1, 256, buffer.data(), nullptr);
    const std::function<void()> calls[] = {
        [&] { cuda::quant_matvec(TensorType::Q6_K, odd, 1, 256, dx.data(), Precision::Fp32, 1, dy.as<float>(), 0.0f,
                                 nullptr); },
        [&] { cuda::quant_matvec_int8(TensorType::Q6_K, odd, 1, 256, r, 1, dy.as<float>(), 0.0f, nullptr); },
        [&] { cuda::dequantize_rows(TensorType::Q6_K, odd, 256, 0, 1, dy.data(), Precision::Fp32, nullptr); },
    };
    for (const auto& call : calls) {
        bool refused = false;
        try {
            call();
        } catch (const Error& e) {
            refused = std::string(e.what()).find("even address") != std::string::npos;
        }
        GPU_CHECK(refused, "quantized blocks at an odd address are refused");
    }
}

// A matvec launched to overlap the kernel before it gives the bits of a plain launch and asks
// L2 for exactly its weights before it waits (overlap_checks.h): every quantized type through
// the kernel that reads it (the Q4_K/Q5_K segments, the Q6_K, Q4_0 and Q8_0 lines, the block
// decoders of the rest; in fp32 the float matvec's words and decoders), three matrices of 45, 13
// and 13 rows in one launch (a block of four rows short at each end), rows of a few blocks and
// of 11008 columns (43 K-quant blocks: Q6_K's groups of eight straddle rows, and the last is
// short), n = 1 and 5.
void overlapped_matvecs_prefetch_their_weights()
{
    constexpr int kParts = 3;
    const int64_t rows[kParts] = {45, 13, 13};
    for (TensorType t : kQuantTypes)
        for (int64_t cols : {test_cols(t).front(), int64_t(11008)}) {
            const auto& traits = tensor_type_traits(t);
            const size_t row_bytes = size_t(cols / traits.block_elems) * traits.block_bytes;
            std::vector<cuda::DeviceBuffer> weights, outputs;
            std::vector<WeightBytes> weight_bytes;
            cuda::MatvecParts parts;
            for (int i = 0; i < kParts; ++i) {
                weights.push_back(upload_blocks(t, random_blocks(t, rows[i], cols)));
                outputs.push_back(poisoned(size_t(5 * rows[i])));
                weight_bytes.push_back({weights.back().data(), size_t(rows[i]) * row_bytes});
                parts.part[parts.count++] = {weights.back().data(), rows[i], outputs.back().as<float>()};
            }
            for (int n : {1, 5}) {
                const auto x = random_floats(rng, size_t(n * cols));
                auto dx = upload(x);
                cuda::DeviceBuffer buffer(cuda::int8_rows_bytes(n, cols), "int8 rows");
                const cuda::Int8Rows rounded_x = cuda::round_rows_int8(dx.data(), Precision::Fp32, n, cols,
                                                                       buffer.data(), nullptr);
                gpu_test::sync();  // rounded on the legacy stream; the launches below run on a stream of their own
                const std::string what = type_name(t) + " " + std::to_string(cols) + " columns n=" + std::to_string(n);
                std::vector<MatvecOutput> written;
                for (int i = 0; i < kParts; ++i)
                    written.push_back({&outputs[size_t(i)], size_t(n * rows[i])});
                check_overlapped_launch(what + ", int8, three matrices", weight_bytes, written,
                                        [&](cuda::KernelStream s) {
                                            cuda::quant_matvec_int8(t, parts, cols, rounded_x, n, 0.0f, s);
                                        });
                check_overlapped_launch(what + ", float", {weight_bytes[0]}, {written[0]}, [&](cuda::KernelStream s) {
                    cuda::quant_matvec(t, weights[0].data(), rows[0], cols, dx.data(), Precision::Fp32, n,
                                       outputs[0].as<float>(), 0.0f, s);
                });
            }
        }
}

// The device's block layout is the one backend/device_weight_layout.h documents, byte for
// byte, as upload_blocks writes it (the kernel tests above check that the kernels read what it
// writes; this, that both follow the documented layout): Q4_0, Q8_0 and Q6_K in groups of eight
// blocks, bodies then d's, a short last group zero-padded to whole size; the other types as
// the file stores them.
void device_block_layout_is_documented()
{
    for (TensorType t : kQuantTypes) {
        const auto& traits = tensor_type_traits(t);
        const int64_t count = 19;  // two whole groups and a short one
        const auto blocks = random_blocks(t, 1, count * traits.block_elems);
        const size_t bytes = device_blocks_bytes(t, count);
        const auto device = upload_blocks(t, blocks);
        std::vector<uint8_t> stored(bytes);
        cudaMemcpy(stored.data(), device.data(), bytes, cudaMemcpyDeviceToHost);
        const size_t block_bytes = traits.block_bytes;
        std::vector<uint8_t> expected(bytes, 0);
        if (!device_groups_blocks(t)) {
            std::copy(blocks.begin(), blocks.end(), expected.begin());
        } else {
            const size_t d = size_t(traits.scale_offsets[0]), body = block_bytes - 2;
            GPU_CHECK(d == 0 || d == body, type_name(t) + ": d first or last");
            for (int64_t i = 0; i < count; ++i) {
                const uint8_t* block = blocks.data() + size_t(i) * block_bytes;
                uint8_t* group = expected.data() + size_t(i / 8) * 8 * block_bytes;
                std::copy_n(block + (d == 0 ? 2 : 0), body, group + size_t(i % 8) * body);
                std::copy_n(block + d, 2, group + 8 * body + size_t(i % 8) * 2);
            }
        }
        GPU_CHECK(bytes == (device_groups_blocks(t) ? 24 : 19) * block_bytes,
                  type_name(t) + ": " + std::to_string(bytes) + " device bytes for 19 blocks");
        GPU_CHECK(device_matrix_bytes(t, 16 * traits.block_elems, 2) == 16 * block_bytes,
                  type_name(t) + ": whole groups take the file's bytes");
        GPU_CHECK(stored == expected, type_name(t) + ": the device bytes are the documented layout");
    }
    GPU_CHECK(device_matrix_bytes(TensorType::F16, 1000, 2) == 2000 &&
                  device_matrix_bytes(TensorType::BF16, 1000, 4) == 4000,
              "float matrices take the precision's bytes");
}

void tile_path_needs_scratch()
{
    cublasHandle_t handle = nullptr;
    cuda::check(cublasCreate(&handle), "cublasCreate");
    const int64_t rows = 4, cols = 256;
    auto dw = upload_blocks(TensorType::Q4_K, random_blocks(TensorType::Q4_K, rows, cols));
    auto dx = upload(random_floats(rng, size_t(9 * cols)), Precision::Fp16);
    auto dy = poisoned(size_t(9 * rows));
    bool threw = false;
    try {
        cuda::project(handle, {dw.data(), rows, cols, Precision::Fp16, TensorType::Q4_K}, dx.data(), 9,
                      dy.as<float>(), 0.0f, {});
    } catch (const Error& e) {
        threw = true;
        GPU_CHECK(std::string(e.what()).find("scratch") != std::string::npos, e.what());
    }
    GPU_CHECK(threw, "the tile path without a scratch must throw pyramid::Error");
    bool too_many = false;
    try {
        cuda::quant_matvec(TensorType::Q4_K, dw.data(), rows, cols, dx.data(), Precision::Fp16, 9, dy.as<float>(), 0.0f,
                           nullptr);
    } catch (const Error&) {
        too_many = true;
    }
    GPU_CHECK(too_many, "quant_matvec refuses more than kMaxMatvecRows rows");
    // The fp16 matvec rounds its activations into the scratch.
    bool int8_threw = false;
    try {
        cuda::project(handle, {dw.data(), rows, cols, Precision::Fp16, TensorType::Q4_K}, dx.data(), 2,
                      dy.as<float>(), 0.0f, {dy.data(), 100});
    } catch (const Error& e) {
        int8_threw = true;
        GPU_CHECK(std::string(e.what()).find("int8 need a scratch of") != std::string::npos, e.what());
    }
    GPU_CHECK(int8_threw, "the int8 matvec without room for its rounded activations must throw pyramid::Error");
    // Scratch sizing: the largest quantized matrix, capped, never below one row of the widest,
    // nor, in fp16, below kMaxMatvecRows rows of the widest rounded to int8.
    const cuda::DeviceMatrix big{nullptr, 32000, 4096, Precision::Fp16, TensorType::Q4_K};
    const cuda::DeviceMatrix wide{nullptr, 1, 11008, Precision::Fp16, TensorType::Q6_K};
    const cuda::DeviceMatrix plain{nullptr, 64000, 8192, Precision::Fp16, std::nullopt};
    GPU_CHECK(cuda::projection_scratch_bytes({&big, &wide, &plain}, Precision::Fp16) == kMaxDequantTileBytes,
              "scratch capped");
    GPU_CHECK(cuda::projection_scratch_bytes({&wide}, Precision::Fp32) == 11008 * 4, "scratch of one wide row");
    GPU_CHECK(cuda::projection_scratch_bytes({&wide}, Precision::Fp16) ==
                  cuda::int8_rows_bytes(cuda::kMaxMatvecRows, 11008),
              "fp16 scratch of eight rounded rows");
    GPU_CHECK(cuda::projection_scratch_bytes({&plain}, Precision::Fp16) == 0, "no scratch without quantized matrices");
    cublasDestroy(handle);
}

} // namespace

std::vector<TestCase> quant_kernel_tests()
{
    return {
        {"dequantize_is_bit_exact", dequantize_is_bit_exact},
        {"quantized_projection_matches", quantized_projection_matches},
        {"matvecs_any_alignment", matvecs_any_alignment},
        {"projections_together_equal_one_by_one", projections_together_equal_one_by_one},
        {"device_block_layout_is_documented", device_block_layout_is_documented},
        {"tile_path_needs_scratch", tile_path_needs_scratch},
        {"overlapped_matvecs_prefetch_their_weights", overlapped_matvecs_prefetch_their_weights},
    };
}
