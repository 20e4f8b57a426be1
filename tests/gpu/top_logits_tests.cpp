// The device top-k selection (top_logits, kernels/top_logits_ops.h), part of test_gpu_kernels.
// Every result must equal core's select_top_logits bit for bit: the same ids in the same
// order, the same value bits. Outputs start poisoned (all ones), with 64 more poisoned entries
// past their end that must stay so.
//
// - top_logits_match_host: rows of 32000, 1000, 37 and 1 logits, k = 1, 2, 40, 100, 1024 (where
//   the row is that long), 1, 3 and 64 rows, on fresh random inputs of six kinds: uniform
//   floats; integers 0..9 (thousands of exact ties at the threshold); uniform with +inf and
//   -inf mixed in; -0.0 and +0.0 among small integers (which the host treats as equal); the
//   extremes (+-inf, +-FLT_MAX, +-the smallest subnormal, +-0, +-1); every logit -inf.
// - top_logits_put_nan_lowest: NaN, where the host comparator is undefined, against the
//   documented rule (below every number, NaNs by id), all-NaN rows included.
// - top_logits_checks_k: k above the row or kMaxTopLogits, or negative, throws pyramid::Error;
//   k == 0 and rows == 0 write nothing.
// - top_logits_large_batches: 512 rows of 32000 (LLaMA's vocabulary, a large decode batch)
//   at k = 1, 40, 1024. (Its speed belongs to pyramid-bench, not to a test.)
#include "top_logits_tests.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <span>
#include <string>

#include "backend/top_logits.h"
#include "cuda_check.h"
#include "top_logits_ops.h"

using namespace pyramid;
using namespace pyramid::gpu_test;

namespace {

std::mt19937 rng(20261123);
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr size_t kGuard = 64;
constexpr uint32_t kPoison = 0xffffffffu;

enum class Kind { Uniform, SmallIntegers, Infinities, SignedZeros, Extremes, AllMinusInf };
constexpr Kind kKinds[] = {Kind::Uniform,     Kind::SmallIntegers, Kind::Infinities,
                           Kind::SignedZeros, Kind::Extremes,      Kind::AllMinusInf};

const char* kind_name(Kind kind)
{
    switch (kind) {
    case Kind::Uniform: return "uniform";
    case Kind::SmallIntegers: return "integers 0..9";
    case Kind::Infinities: return "with +-inf";
    case Kind::SignedZeros: return "with -0/+0";
    case Kind::Extremes: return "extremes";
    case Kind::AllMinusInf: return "all -inf";
    }
    return "?";
}

int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
float uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); }

float draw(Kind kind)
{
    switch (kind) {
    case Kind::Uniform: return uniform(-20.0f, 20.0f);
    case Kind::SmallIntegers: return float(pick(0, 9));
    case Kind::Infinities: {
        const int c = pick(0, 7);
        return c == 0 ? kInf : c == 1 ? -kInf : uniform(-5.0f, 5.0f);
    }
    case Kind::SignedZeros: {
        const int c = pick(0, 3);
        return c == 0 ? -0.0f : c == 1 ? 0.0f : float(pick(-2, 2));
    }
    case Kind::Extremes: {
        constexpr float max = std::numeric_limits<float>::max();
        constexpr float tiny = std::numeric_limits<float>::denorm_min();
        const float choices[] = {kInf, -kInf, max, -max, tiny, -tiny, 0.0f, -0.0f, 1.0f, -1.0f};
        return choices[pick(0, 9)];
    }
    case Kind::AllMinusInf: return -kInf;
    }
    return 0.0f;
}

std::vector<float> random_logits(Kind kind, size_t count)
{
    std::vector<float> out(count);
    for (float& x : out)
        x = draw(kind);
    return out;
}

uint32_t bits(float x)
{
    uint32_t u = 0;
    std::memcpy(&u, &x, sizeof u);
    return u;
}

template <typename T>
std::vector<T> fetch(const void* device, size_t count)
{
    sync();
    std::vector<T> out(count);
    cudaMemcpy(out.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost);
    sync();
    return out;
}

struct Outputs {
    cuda::DeviceBuffer ids, values;
    size_t count;
};

// Poisoned outputs for `count` entries and the guard after them.
Outputs poisoned_outputs(size_t count) { return {poisoned(count + kGuard), poisoned(count + kGuard), count}; }

// The outputs as one TopLogits per row, after checking that nothing past them was written.
std::vector<TopLogits> results(const std::string& what, const Outputs& out, int rows, int k)
{
    const auto ids = fetch<int32_t>(out.ids.data(), out.count + kGuard);
    const auto values = fetch<float>(out.values.data(), out.count + kGuard);
    for (size_t i = out.count; i < out.count + kGuard; ++i)
        if (uint32_t(ids[i]) != kPoison || bits(values[i]) != kPoison) {
            fail(what + ": written past the output, at entry " + std::to_string(i));
            break;
        }
    std::vector<TopLogits> top(static_cast<size_t>(rows));
    for (size_t r = 0; r < top.size(); ++r) {
        top[r].ids.assign(ids.begin() + r * k, ids.begin() + (r + 1) * k);
        top[r].values.assign(values.begin() + r * k, values.begin() + (r + 1) * k);
    }
    return top;
}

// Ids equal; values equal bit for bit (any NaN for a NaN). Reports the first difference.
void check_same(const std::string& what, const std::vector<TopLogits>& got, const std::vector<TopLogits>& want)
{
    for (size_t r = 0; r < want.size(); ++r)
        for (size_t i = 0; i < want[r].ids.size(); ++i) {
            const float g = got[r].values[i], w = want[r].values[i];
            const bool same_value = std::isnan(w) ? std::isnan(g) : bits(g) == bits(w);
            if (got[r].ids[i] != want[r].ids[i] || !same_value) {
                char text[200];
                std::snprintf(text, sizeof text, ": row %zu entry %zu is id %d value %.9g (0x%08x), expected id %d "
                                                 "value %.9g (0x%08x)",
                              r, i, got[r].ids[i], double(g), bits(g), want[r].ids[i], double(w), bits(w));
                fail(what + text);
                return;
            }
        }
}

std::vector<TopLogits> host_top(const std::vector<float>& logits, int n_vocab, int k)
{
    std::vector<TopLogits> top;
    for (size_t r = 0; r < logits.size() / size_t(n_vocab); ++r)
        top.push_back(select_top_logits(std::span<const float>(logits).subspan(r * n_vocab, n_vocab), k));
    return top;
}

std::vector<TopLogits> device_top(const std::string& what, const std::vector<float>& logits, int n_vocab, int k)
{
    const int rows = int(logits.size() / size_t(n_vocab));
    auto input = upload(logits);
    Outputs out = poisoned_outputs(size_t(rows) * k);
    cuda::top_logits(input.as<float>(), rows, n_vocab, k, out.ids.as<int32_t>(), out.values.as<float>(), nullptr);
    return results(what, out, rows, k);
}

void top_logits_match_host()
{
    int cases = 0;
    for (int n_vocab : {32000, 1000, 37, 1})
        for (int k : {1, 2, 40, 100, 1024})
            for (int rows : {1, 3, 64})
                for (Kind kind : kKinds) {
                    if (k > n_vocab)
                        continue;
                    const std::string what = std::string("top_logits ") + kind_name(kind) + " n_vocab=" +
                                             std::to_string(n_vocab) + " k=" + std::to_string(k) +
                                             " rows=" + std::to_string(rows);
                    const auto logits = random_logits(kind, size_t(rows) * n_vocab);
                    check_same(what, device_top(what, logits, n_vocab, k), host_top(logits, n_vocab, k));
                    ++cases;
                }
    std::printf("  %d cases\n", cases);
}

// The documented order with NaN: numbers as the host orders them, then the NaNs by id.
std::vector<TopLogits> nan_last_top(const std::vector<float>& logits, int n_vocab, int k)
{
    std::vector<TopLogits> top;
    for (size_t r = 0; r < logits.size() / size_t(n_vocab); ++r) {
        const float* row = logits.data() + r * n_vocab;
        std::vector<int32_t> order(static_cast<size_t>(n_vocab));
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
            const bool nan_a = std::isnan(row[a]), nan_b = std::isnan(row[b]);
            return nan_a || nan_b ? !nan_a && nan_b : row[a] > row[b];
        });
        TopLogits t;
        t.ids.assign(order.begin(), order.begin() + k);
        for (int32_t id : t.ids)
            t.values.push_back(row[id]);
        top.push_back(std::move(t));
    }
    return top;
}

void top_logits_put_nan_lowest()
{
    for (int n_vocab : {32000, 1000, 37})
        for (int k : {1, 40, 1024})
            for (int nan_share : {4, 1}) {  // a quarter NaN; all NaN
                if (k > n_vocab)
                    continue;
                const int rows = 3;
                std::vector<float> logits = random_logits(Kind::Infinities, size_t(rows) * n_vocab);
                for (float& x : logits)
                    if (pick(1, nan_share) == 1)
                        x = std::numeric_limits<float>::quiet_NaN();
                const std::string what = "top_logits with NaN (1 in " + std::to_string(nan_share) + ") n_vocab=" +
                                         std::to_string(n_vocab) + " k=" + std::to_string(k);
                check_same(what, device_top(what, logits, n_vocab, k), nan_last_top(logits, n_vocab, k));
            }
}

void top_logits_checks_k()
{
    const int n_vocab = 2000, rows = 2;
    auto input = upload(random_logits(Kind::Uniform, size_t(rows) * n_vocab));
    Outputs out = poisoned_outputs(size_t(rows) * cuda::kMaxTopLogits);
    const auto run = [&](int r, int n, int k) {
        cuda::top_logits(input.as<float>(), r, n, k, out.ids.as<int32_t>(), out.values.as<float>(), nullptr);
    };
    const auto throws = [&](const std::string& what, int r, int n, int k) {
        try {
            run(r, n, k);
        } catch (const Error& e) {
            std::printf("  (expected) %s\n", e.what());
            return;
        }
        fail(what + " must throw pyramid::Error");
    };
    throws("k above n_vocab", rows, 37, 38);
    throws("k above kMaxTopLogits", rows, n_vocab, cuda::kMaxTopLogits + 1);
    throws("negative k", rows, n_vocab, -1);
    throws("an empty row", rows, 0, 0);
    throws("negative rows", -1, n_vocab, 1);
    run(rows, n_vocab, 0);
    run(0, n_vocab, 5);
    const auto ids = fetch<uint32_t>(out.ids.data(), out.count + kGuard);
    const auto values = fetch<uint32_t>(out.values.data(), out.count + kGuard);
    GPU_CHECK(std::all_of(ids.begin(), ids.end(), [](uint32_t x) { return x == kPoison; }) &&
                  std::all_of(values.begin(), values.end(), [](uint32_t x) { return x == kPoison; }),
              "k == 0 and rows == 0 write nothing");
}

void top_logits_large_batches()
{
    const int n_vocab = 32000, rows = 512;
    for (int k : {1, 40, 1024}) {
        const auto logits = random_logits(Kind::Uniform, size_t(rows) * n_vocab);
        auto input = upload(logits);
        Outputs out = poisoned_outputs(size_t(rows) * k);
        cuda::top_logits(input.as<float>(), rows, n_vocab, k, out.ids.as<int32_t>(), out.values.as<float>(), nullptr);
        const std::string what = "top_logits rows=" + std::to_string(rows) + " k=" + std::to_string(k);
        check_same(what, results(what, out, rows, k), host_top(logits, n_vocab, k));
    }
}

} // namespace

std::vector<TestCase> top_logits_tests()
{
    return {
        {"top_logits_match_host", top_logits_match_host},
        {"top_logits_put_nan_lowest", top_logits_put_nan_lowest},
        {"top_logits_checks_k", top_logits_checks_k},
        {"top_logits_large_batches", top_logits_large_batches},
    };
}
