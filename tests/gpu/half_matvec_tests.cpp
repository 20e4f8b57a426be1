// The fp16 weights' matvec (half_matvec.h), part of test_gpu_kernels:
//
// - through project(), n = 1, 3, 4 (the matvec) and 5, 9 (cublasGemmEx), beta 0 over NaN and 1 over
//   random y, against a float64 reference over the same fp16 weights and activations, at row
//   counts that are not a multiple of a block's four, and rows of 8 values (one lane's load),
//   264 (lanes idle in the last step) and 2056 (past one round of eight loads in flight);
// - half_matvec itself at n = 8, and that project() takes it for n up to kHalfMatvecRows (its
//   bits are half_matvec's own); a row's sums do not depend on the other rows of x (n = 1, 5 and
//   8 give row 0 the same bits);
// - project_each of fp16 matrices in one launch gives each the bits it gets alone, beside a
//   quantized matrix that takes its own launch;
// - weights or activations off 16-byte alignment and rows that are not a multiple of eight
//   values go through cuBLAS, with the same tolerance; half_matvec itself refuses them, and more
//   than kMaxMatvecRows rows.
//
// Tolerance: each value within 1e-5 * sum |w x| of the float64 reference (projection_reference.h):
// both sides multiply the same fp16 values exactly in float32 (11-bit significands), and a
// lane's sum of up to 2056 / 256 * 8 products, then a 5-step shuffle tree, is off by well under
// (k / 32 + 8) * 2^-24 of sum |w x|.
#include "half_matvec_tests.h"

#include <cublas_v2.h>

#include <random>
#include <string>

#include "cuda_check.h"
#include "half_matvec.h"
#include "overlap_checks.h"
#include "projection.h"
#include "projection_reference.h"
#include "util/error.h"
#include "util/float16.h"

using namespace pyramid;
using namespace pyramid::gpu_test;
using cuda::Precision;

namespace {

std::mt19937 rng(20261205);

std::string shape(int64_t rows, int64_t cols, int n)
{
    return std::to_string(rows) + "x" + std::to_string(cols) + " n=" + std::to_string(n);
}

cuda::DeviceMatrix half_matrix(const void* data, int64_t rows, int64_t cols)
{
    return {data, rows, cols, Precision::Fp16, std::nullopt};
}

// fp16 values at a byte offset (a multiple of 2) into their device buffer.
struct ShiftedHalves {
    cuda::DeviceBuffer buffer;
    const void* data;
};

ShiftedHalves upload_shifted(const std::vector<float>& values, size_t shift_bytes)
{
    std::vector<uint16_t> halves(shift_bytes / 2 + values.size());
    for (size_t i = 0; i < values.size(); ++i)
        halves[shift_bytes / 2 + i] = fp32_to_fp16(values[i]);
    cuda::DeviceBuffer buffer = upload_raw(halves);
    const void* data = static_cast<const std::byte*>(buffer.data()) + shift_bytes;
    return {std::move(buffer), data};
}

void half_projection_matches()
{
    cublasHandle_t handle = nullptr;
    cuda::check(cublasCreate(&handle), "cublasCreate");
    cudaStream_t stream = nullptr;
    cuda::check(cublasGetStream(handle, &stream), "cublasGetStream");
    for (int64_t cols : {8, 264, 2056}) {
        const int64_t rows = cols > 1000 ? 37 : 203;
        const auto w = rounded(random_floats(rng, size_t(rows * cols)), Precision::Fp16);
        const auto dw = upload(w, Precision::Fp16);
        const cuda::DeviceMatrix matrix = half_matrix(dw.data(), rows, cols);
        for (int n : {1, 3, 4, 5, 8, 9}) {
            const auto x = rounded(random_floats(rng, size_t(n * cols)), Precision::Fp16);
            const auto y0 = random_floats(rng, size_t(n * rows), -4.0f, 4.0f);
            const auto dx = upload(x, Precision::Fp16);
            for (float beta : {0.0f, 1.0f}) {
                const std::string what = "fp16 " + shape(rows, cols, n) + " beta=" + std::to_string(int(beta));
                auto dy = beta == 1.0f ? upload(y0) : poisoned(y0.size());
                const Reference expected = reference(w, x, rows, cols, n, beta == 1.0f ? &y0 : nullptr);
                cuda::project(handle, matrix, dx.data(), n, dy.as<float>(), beta);
                const auto y = download(dy.data(), y0.size());
                check_projection(what, y, expected);
                if (n > cuda::kMaxMatvecRows)
                    continue;
                auto direct = beta == 1.0f ? upload(y0) : poisoned(y0.size());
                cuda::half_matvec(dw.data(), rows, cols, dx.data(), n, direct.as<float>(), beta, stream);
                const auto y_direct = download(direct.data(), y0.size());
                check_projection(what + ", half_matvec", y_direct, expected);
                if (n <= cuda::kHalfMatvecRows)
                    check_bits(what + ": project() takes half_matvec", y, y_direct);
            }
        }
    }
    cublasDestroy(handle);
}

// Row 0 of x alone, and as the first of 5 and of 8 rows: the same bits for its outputs.
void half_matvec_rows_are_independent()
{
    const int64_t rows = 61, cols = 1032;
    const auto dw = upload(random_floats(rng, size_t(rows * cols)), Precision::Fp16);
    const auto x = random_floats(rng, size_t(cuda::kMaxMatvecRows * cols));
    const auto dx = upload(x, Precision::Fp16);
    std::vector<float> alone;
    for (int n : {1, 5, cuda::kMaxMatvecRows}) {
        auto dy = poisoned(size_t(n * rows));
        cuda::half_matvec(dw.data(), rows, cols, dx.data(), n, dy.as<float>(), 0.0f, nullptr);
        const auto row0 = download(dy.data(), size_t(rows));
        if (n == 1)
            alone = row0;
        else
            check_bits("row 0 of " + std::to_string(n) + " against alone", row0, alone);
    }
}

// q, k and v shapes of one width in one launch, then a quantized matrix and one more fp16 one:
// each y as project() gives it alone.
void half_projections_together_equal_one_by_one()
{
    cublasHandle_t handle = nullptr;
    cuda::check(cublasCreate(&handle), "cublasCreate");
    const int64_t cols = 512;
    const int64_t rows[] = {203, 37, 64, 11};
    std::vector<cuda::DeviceBuffer> weights;
    std::vector<cuda::DeviceMatrix> matrices;
    for (int64_t r : rows) {
        weights.push_back(upload(random_floats(rng, size_t(r * cols)), Precision::Fp16));
        matrices.push_back(half_matrix(weights.back().data(), r, cols));
    }
    // A Q8_0 matrix (blocks of 34 bytes: a scale of 0 and quants, any bytes are a valid block).
    std::vector<uint8_t> q8(size_t(rows[2] * cols / 32 * 34));
    for (uint8_t& b : q8)
        b = uint8_t(rng());
    for (size_t b = 0; b < q8.size(); b += 34) {
        q8[b] = 0x00;
        q8[b + 1] = 0x20;  // fp16 2^-7
    }
    const cuda::DeviceBuffer dq8 = upload_blocks(TensorType::Q8_0, q8);
    const cuda::DeviceMatrix quantized{dq8.data(), rows[2], cols, Precision::Fp16, TensorType::Q8_0};
    cuda::DeviceBuffer scratch(cuda::int8_rows_bytes(cuda::kMaxMatvecRows, cols), "test scratch");
    const cuda::ProjectionScratch s{scratch.data(), scratch.bytes()};
    for (int n : {1, 5}) {
        const auto dx = upload(random_floats(rng, size_t(n * cols)), Precision::Fp16);
        const cuda::DeviceMatrix* list[] = {&matrices[0], &matrices[1], &matrices[2], &quantized, &matrices[3]};
        std::vector<cuda::DeviceBuffer> together, alone;
        for (const cuda::DeviceMatrix* m : list) {
            together.push_back(poisoned(size_t(n * m->rows)));
            alone.push_back(poisoned(size_t(n * m->rows)));
        }
        const auto out = [&](size_t i) { return cuda::ProjectionOutput{list[i], together[i].as<float>()}; };
        cuda::project_each(handle, {out(0), out(1), out(2), out(3), out(4)}, dx.data(), n, s);
        for (size_t i = 0; i < together.size(); ++i) {
            cuda::project(handle, *list[i], dx.data(), n, alone[i].as<float>(), 0.0f, s);
            const size_t count = size_t(n * list[i]->rows);
            check_bits("project_each, matrix " + std::to_string(i) + " n=" + std::to_string(n),
                       download(together[i].data(), count), download(alone[i].data(), count));
        }
    }
    cublasDestroy(handle);
}

// Launched to overlap the kernel before it, three matrices of 45, 13 and 13 rows in one launch
// give the bits of a plain launch and ask L2 for exactly their weights (overlap_checks.h).
void overlapped_half_matvec_prefetches_its_weights()
{
    constexpr int kParts = 3;
    const int64_t rows[kParts] = {45, 13, 13};
    for (int64_t cols : {264, 4096}) {
        std::vector<cuda::DeviceBuffer> weights, outputs;
        std::vector<WeightBytes> weight_bytes;
        cuda::MatvecParts parts;
        for (int i = 0; i < kParts; ++i) {
            weights.push_back(upload(random_floats(rng, size_t(rows[i] * cols)), Precision::Fp16));
            outputs.push_back(poisoned(size_t(cuda::kMaxMatvecRows * rows[i])));
            weight_bytes.push_back({weights.back().data(), weights.back().bytes()});
            parts.part[parts.count++] = {weights.back().data(), rows[i], outputs.back().as<float>()};
        }
        for (int n : {1, cuda::kMaxMatvecRows}) {
            const auto dx = upload(random_floats(rng, size_t(n * cols)), Precision::Fp16);
            std::vector<MatvecOutput> written;
            for (int i = 0; i < kParts; ++i)
                written.push_back({&outputs[size_t(i)], size_t(n * rows[i])});
            check_overlapped_launch("fp16 " + std::to_string(cols) + " columns n=" + std::to_string(n), weight_bytes,
                                    written, [&](cuda::KernelStream s) {
                                        cuda::half_matvec(parts, cols, dx.data(), n, 0.0f, s);
                                    });
        }
    }
}

// Off 16-byte alignment, or rows of 12 values: project() takes cuBLAS (same tolerance), and
// half_matvec refuses the case, as it does nine rows.
void half_matvec_refuses_what_it_cannot_load()
{
    cublasHandle_t handle = nullptr;
    cuda::check(cublasCreate(&handle), "cublasCreate");
    const int n = 2;
    struct Case {
        int64_t cols;
        size_t weight_shift, x_shift;
    };
    for (const Case c : {Case{264, 2, 0}, Case{264, 0, 8}, Case{12, 0, 0}}) {
        const int64_t rows = 19;
        const auto w = rounded(random_floats(rng, size_t(rows * c.cols)), Precision::Fp16);
        const auto x = rounded(random_floats(rng, size_t(n * c.cols)), Precision::Fp16);
        const ShiftedHalves dw = upload_shifted(w, c.weight_shift), dx = upload_shifted(x, c.x_shift);
        const std::string what = "fp16 " + shape(rows, c.cols, n) + ", weights +" + std::to_string(c.weight_shift) +
                                 " bytes, activations +" + std::to_string(c.x_shift);
        GPU_CHECK(!cuda::half_matvec_fits(dw.data, c.cols, dx.data), what + ": does not fit");
        auto dy = poisoned(size_t(n * rows));
        cuda::project(handle, half_matrix(dw.data, rows, c.cols), dx.data, n, dy.as<float>(), 0.0f);
        check_projection(what, download(dy.data(), size_t(n * rows)), reference(w, x, rows, c.cols, n, nullptr));
        bool refused = false;
        try {
            cuda::half_matvec(dw.data, rows, c.cols, dx.data, n, dy.as<float>(), 0.0f, nullptr);
        } catch (const Error& e) {
            refused = std::string(e.what()).find("16-byte aligned") != std::string::npos;
        }
        GPU_CHECK(refused, what + ": half_matvec refuses it, naming the alignment");
    }
    const auto dw = upload(random_floats(rng, 8 * 64), Precision::Fp16);
    const auto dx = upload(random_floats(rng, 9 * 64), Precision::Fp16);
    auto dy = poisoned(9 * 8);
    bool refused = false;
    try {
        cuda::half_matvec(dw.data(), 8, 64, dx.data(), 9, dy.as<float>(), 0.0f, nullptr);
    } catch (const Error& e) {
        refused = std::string(e.what()).find("at most 8") != std::string::npos;
    }
    GPU_CHECK(refused, "half_matvec refuses more than kMaxMatvecRows rows");
    cublasDestroy(handle);
}

} // namespace

std::vector<TestCase> half_matvec_tests()
{
    return {
        {"half_projection_matches", half_projection_matches},
        {"half_matvec_rows_are_independent", half_matvec_rows_are_independent},
        {"half_projections_together_equal_one_by_one", half_projections_together_equal_one_by_one},
        {"half_matvec_refuses_what_it_cannot_load", half_matvec_refuses_what_it_cannot_load},
        {"overlapped_half_matvec_prefetches_its_weights", overlapped_half_matvec_prefetches_its_weights},
    };
}
