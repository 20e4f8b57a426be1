#include "attention_checks.h"

#include <algorithm>

#include "attention_ops.h"

namespace pyramid::gpu_test {

void check_attention_against_cpu(std::mt19937& rng, FilledStore& filled, int len, int n,
                                 const cpu::AttentionShape& s, cuda::Precision p, const std::string& what,
                                 float q_range)
{
    const int q_width = s.n_heads * s.head_dim;
    const auto q = random_floats(rng, size_t(n) * q_width, -q_range, q_range);
    AttentionProbe probe;
    probe.first_row = n / 2;
    probe.row_weights = random_floats(rng, size_t(n - probe.first_row), 0.1f, 2.0f);

    std::vector<float> expected(q.size()), expected_probe(static_cast<size_t>(len));
    cpu::attention(q.data(), n, filled.keys.data(), filled.values.data(), len, s, expected.data(), &probe,
                   expected_probe.data());

    const auto dq = upload(q);
    const auto out = poisoned(q.size(), p);
    const auto stats = poisoned(size_t(n) * s.n_heads * 2);
    const auto weights = upload(probe.row_weights);
    const auto probe_out = poisoned(size_t(len));
    const cuda::AttentionDims dims{s.n_heads, s.n_kv_heads, s.head_dim};
    const auto partials = poisoned(cuda::probe_partial_floats(dims, len));  // every sum written first
    const cuda::KvBlockTable table = filled.store.table();
    cuda::attention(dq.as<float>(), n, table, len, dims, p, out.data(), stats.as<float>(), nullptr);
    cuda::attention_probe(dq.as<float>(), n, table, len, dims, p, stats.as<float>(), probe.first_row,
                          weights.as<float>(), partials.as<float>(), probe_out.as<float>(), nullptr);

    // Outputs are averages of values in [-1, 1]; scores come from the same float32 query and
    // the same stored keys in both.
    check_close("attention " + what, download(out.data(), q.size(), p), expected,
                p == cuda::Precision::Fp32 ? 1e-5 : kHalfStep, 1e-4);
    const float scale = *std::max_element(expected_probe.begin(), expected_probe.end());
    check_close("probe " + what, download(probe_out.data(), size_t(len)), expected_probe, 1e-5 * scale, 1e-4);
    if (n < 2)
        return;
    // In two chunks, as a chunked prompt adds them: the first chunk's rows when the cache held
    // only the entries up to its last row.
    const int n1 = n / 2;
    const auto chunked = upload(std::vector<float>(size_t(len), 0.0f));
    cuda::attention_probe_add(dq.as<float>(), n1, table, len - (n - n1), dims, p, stats.as<float>(),
                              std::min(probe.first_row, n1), weights.as<float>(), partials.as<float>(),
                              chunked.as<float>(), nullptr);
    cuda::attention_probe_add(dq.as<float>() + size_t(n1) * q_width, n - n1, table, len, dims, p,
                              stats.as<float>() + size_t(n1) * s.n_heads * 2, std::max(0, probe.first_row - n1),
                              weights.as<float>() + std::max(0, n1 - probe.first_row), partials.as<float>(),
                              chunked.as<float>(), nullptr);
    check_close("probe in two chunks " + what, download(chunked.data(), size_t(len)), expected_probe, 1e-5 * scale,
                1e-4);
}

} // namespace pyramid::gpu_test
