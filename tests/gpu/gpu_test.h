#pragma once
// A small harness for the GPU tests, which are plain programs (no Qt) so they build wherever
// the CUDA backend builds. A test is a function; checks count failures instead of stopping,
// so one run reports every mismatch. Without a CUDA device the program exits 77, which CTest
// reports as skipped.
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "block_upload.h"
#include "device_buffer.h"
#include "backend/cuda_backend_options.h"
#include "backend/device_weight_layout.h"
#include "shared_data.h"
#include "util/error.h"
#include "util/float16.h"

namespace pyramid::gpu_test {

inline constexpr int kSkipped = 77;
inline constexpr cuda::Precision kPrecisions[] = {cuda::Precision::Fp32, cuda::Precision::Fp16};
inline constexpr double kHalfStep = 1.0 / 2048;  // half precision's relative step (11 significant bits)

// what, followed by the precision in brackets.
inline std::string label(const std::string& what, cuda::Precision p)
{
    return what + " [" + cuda::precision_name(p) + "]";
}

inline int& failures()
{
    static int count = 0;
    return count;
}

inline void fail(const std::string& message)
{
    ++failures();
    std::printf("  FAIL: %s\n", message.c_str());
}

#define GPU_CHECK(condition, message)                                                          \
    do {                                                                                       \
        if (!(condition))                                                                      \
            ::pyramid::gpu_test::fail(std::string(#condition) + " (" + (message) + ")");      \
    } while (0)

// Whether the device can launch kernels to overlap the kernel before them (programmatic
// dependent launch, kernels/kernel_stream.h): compute capability 9.0 and later.
inline bool device_overlaps()
{
    cudaDeviceProp props{};
    return cudaGetDeviceProperties(&props, 0) == cudaSuccess && props.major >= 9;
}

// Thrown by a test that cannot run here (missing shared data); the rest still run.
struct Skip {
    std::string why;
};

inline std::filesystem::path require_shared(const std::string& relative)
{
    const std::filesystem::path path = test::shared_path(relative);
    if (!std::filesystem::exists(path))
        throw Skip{test::missing_message(path)};
    return path;
}

// Element-wise |actual - expected| <= abs_tol + rel_tol * |expected|; NaN always fails.
// Reports the worst element once per call.
inline bool check_close(const std::string& what, const std::vector<float>& actual, const std::vector<float>& expected,
                        double abs_tol, double rel_tol)
{
    if (actual.size() != expected.size()) {
        fail(what + ": " + std::to_string(actual.size()) + " values, expected " + std::to_string(expected.size()));
        return false;
    }
    size_t bad = 0, worst = 0;
    double worst_excess = -1.0;
    for (size_t i = 0; i < actual.size(); ++i) {
        const double limit = abs_tol + rel_tol * std::abs(double(expected[i]));
        const double err = std::abs(double(actual[i]) - double(expected[i]));
        if (!(err <= limit)) {
            ++bad;
            const double excess = std::isnan(err) ? INFINITY : err - limit;
            if (excess > worst_excess) {
                worst_excess = excess;
                worst = i;
            }
        }
    }
    if (bad > 0) {
        char text[256];
        std::snprintf(text, sizeof text, "%s: %zu of %zu values off, worst [%zu] = %.7g, expected %.7g", what.c_str(),
                      bad, actual.size(), worst, double(actual[worst]), double(expected[worst]));
        fail(text);
    }
    return bad == 0;
}

inline std::vector<float> random_floats(std::mt19937& rng, size_t n, float lo = -1.0f, float hi = 1.0f)
{
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> out(n);
    for (float& x : out)
        x = d(rng);
    return out;
}

// What a value becomes once stored in `p`.
inline std::vector<float> rounded(const std::vector<float>& x, cuda::Precision p)
{
    if (p == cuda::Precision::Fp32)
        return x;
    std::vector<float> out(x.size());
    for (size_t i = 0; i < x.size(); ++i)
        out[i] = fp16_to_fp32(fp32_to_fp16(x[i]));
    return out;
}

inline void sync()
{
    const cudaError_t status = cudaDeviceSynchronize();
    if (status != cudaSuccess)
        throw std::runtime_error(std::string("CUDA error: ") + cudaGetErrorString(status));
}

// A device copy of host floats stored as `p` (float32 or half).
inline cuda::DeviceBuffer upload(const std::vector<float>& host, cuda::Precision p = cuda::Precision::Fp32)
{
    cuda::DeviceBuffer buffer(host.size() * cuda::element_bytes(p), "test input");
    if (p == cuda::Precision::Fp32) {
        cudaMemcpy(buffer.data(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice);
    } else {
        std::vector<uint16_t> half(host.size());
        for (size_t i = 0; i < host.size(); ++i)
            half[i] = fp32_to_fp16(host[i]);
        cudaMemcpy(buffer.data(), half.data(), half.size() * sizeof(uint16_t), cudaMemcpyHostToDevice);
    }
    sync();
    return buffer;
}

template <typename T>
cuda::DeviceBuffer upload_raw(const std::vector<T>& host)
{
    cuda::DeviceBuffer buffer(host.size() * sizeof(T), "test input");
    cudaMemcpy(buffer.data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
    sync();
    return buffer;
}

// Blocks of the quantized `type` as a file stores them, on the device in its block layout
// (backend/device_weight_layout.h), as the backend uploads a model's.
inline cuda::DeviceBuffer upload_blocks(TensorType type, const std::vector<uint8_t>& blocks)
{
    const int64_t count = static_cast<int64_t>(blocks.size() / tensor_type_traits(type).block_bytes);
    cuda::DeviceBuffer buffer(device_blocks_bytes(type, count), "test blocks");
    cuda::upload_blocks(type, blocks.data(), count, buffer.data(), "test blocks");
    return buffer;
}

// A device buffer of `count` elements of `p`, filled with NaN so unwritten outputs show.
inline cuda::DeviceBuffer poisoned(size_t count, cuda::Precision p = cuda::Precision::Fp32)
{
    cuda::DeviceBuffer buffer(count * cuda::element_bytes(p), "test output");
    cudaMemset(buffer.data(), 0xff, buffer.bytes());  // all-ones: NaN in half and float
    sync();
    return buffer;
}

// `count` elements of `p` from the device, as float32.
inline std::vector<float> download(const void* device, size_t count, cuda::Precision p = cuda::Precision::Fp32)
{
    sync();
    std::vector<float> out(count);
    if (p == cuda::Precision::Fp32) {
        cudaMemcpy(out.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost);
    } else {
        std::vector<uint16_t> half(count);
        cudaMemcpy(half.data(), device, count * sizeof(uint16_t), cudaMemcpyDeviceToHost);
        for (size_t i = 0; i < count; ++i)
            out[i] = fp16_to_fp32(half[i]);
    }
    sync();
    return out;
}

struct TestCase {
    const char* name;
    std::function<void()> run;
};

// Runs the tests whose names contain one of `filters` (all when none); returns the process
// exit code (0 all passed, 1 failures, 77 no device or nothing ran). `--list` alone prints
// every test's name instead, device or not.
inline int run_all(const char* program, const std::vector<TestCase>& all_tests, const std::vector<std::string>& filters)
{
    if (filters == std::vector<std::string>{"--list"}) {
        for (const TestCase& t : all_tests)
            std::printf("%s\n", t.name);
        return 0;
    }
    std::vector<TestCase> tests;
    for (const TestCase& t : all_tests) {
        bool wanted = filters.empty();
        for (const std::string& f : filters)
            wanted |= std::string(t.name).find(f) != std::string::npos;
        if (wanted)
            tests.push_back(t);
    }
    int devices = 0;
    const cudaError_t status = cudaGetDeviceCount(&devices);
    if (status != cudaSuccess || devices == 0) {
        std::printf("%s: skipped, no CUDA device (%s)\n", program,
                    status != cudaSuccess ? cudaGetErrorString(status) : "cudaGetDeviceCount found none");
        return kSkipped;
    }
    cudaDeviceProp props{};
    cudaGetDeviceProperties(&props, 0);
    std::printf("%s on %s (sm_%d%d)\n", program, props.name, props.major, props.minor);
    int skipped = 0;
    for (const TestCase& t : tests) {
        const int before = failures();
        const auto start = std::chrono::steady_clock::now();
        std::printf("[ RUN  ] %s\n", t.name);
        std::fflush(stdout);
        try {
            t.run();
        } catch (const Skip& s) {
            std::printf("[ SKIP ] %s: %s\n", t.name, s.why.c_str());
            ++skipped;
            continue;
        } catch (const std::exception& e) {
            fail(std::string("exception: ") + e.what());
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("[ %s ] %s (%.2f s)\n", failures() == before ? " OK " : "FAIL", t.name, seconds);
        std::fflush(stdout);
    }
    std::printf("%s: %zu tests, %d failed checks, %d skipped\n", program, tests.size(), failures(), skipped);
    if (failures() == 0 && skipped == static_cast<int>(tests.size()))  // none ran
        return kSkipped;
    return failures() == 0 ? 0 : 1;
}

} // namespace pyramid::gpu_test
