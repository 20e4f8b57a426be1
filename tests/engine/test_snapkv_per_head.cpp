// SnapKV and PyramidKV selecting per KV head (kv_selection per-head): the per-head probe, what
// each head keeps on hand-made scores, and a decode over the per-head cache checked against a
// direct float computation of a one-layer model that attends over each head's kept entries.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "backend/cpu_backend.h"
#include "backend/cpu_kernels.h"
#include "generate/inference_session.h"
#include "kv/compression_policy.h"
#include "kv/snapkv_policy.h"
#include "model/synthetic_weights.h"
#include "util/error.h"
#include "index_lists.h"
#include "random_values.h"
#include "snapkv_configs.h"

using namespace pyramid;
using pyramid::test::joined;
using pyramid::test::range;

namespace {

CompressionConfig per_head_config(CompressionPolicyKind kind, int window, int kernel)
{
    CompressionConfig c = test::snapkv_config(kind, window, kernel);
    c.kv_selection = KvSelection::PerHead;
    return c;
}

// One layer, GQA with three query heads per KV head (as SmolLM2-135M), float32 weights.
ModelConfig one_layer_config()
{
    return ModelConfig{.name = "per-head test", .n_vocab = 64, .dim = 48, .ffn_dim = 64, .n_layers = 1,
                       .n_heads = 6, .n_kv_heads = 2, .head_dim = 8, .context_length = 128};
}

std::vector<float> project(const WeightView& w, const std::vector<float>& x, int n)
{
    std::vector<float> y(static_cast<size_t>(n) * static_cast<size_t>(w.rows));
    cpu::matmul(w, x.data(), n, y.data());
    return y;
}

struct LayerInputs {
    std::vector<float> hidden, q, k, v;  // [n, dim], [n, n_heads * hd], [n, kv_dim] x 2
};

// Embedding, norm, projections and RoPE of `tokens` at `first_position` onwards, as the
// backend computes them for one step.
LayerInputs layer_inputs(const ModelWeights& w, std::span<const int32_t> tokens, int first_position)
{
    const ModelConfig& c = w.config;
    const int n = static_cast<int>(tokens.size());
    LayerInputs in;
    in.hidden.resize(static_cast<size_t>(n) * c.dim);
    cpu::embed_rows(w.token_embedding, tokens, in.hidden.data());
    std::vector<float> x(in.hidden.size());
    cpu::rms_norm(in.hidden.data(), w.layers[0].attn_norm, n, c.dim, c.rms_eps, x.data());
    in.q = project(w.layers[0].wq, x, n);
    in.k = project(w.layers[0].wk, x, n);
    in.v = project(w.layers[0].wv, x, n);
    std::vector<int32_t> positions(static_cast<size_t>(n));
    std::iota(positions.begin(), positions.end(), first_position);
    cpu::rope(in.q.data(), n, c.n_heads, c.head_dim, positions, c.rope_theta, c.rope_layout);
    cpu::rope(in.k.data(), n, c.n_kv_heads, c.head_dim, positions, c.rope_theta, c.rope_layout);
    return in;
}

// The logits of decoding `token` after `prompt` when KV head g attends only over the prompt
// entries kept[g] (and the new token), computed directly: each group of query heads runs
// attention over its head's kept keys and values alone.
std::vector<float> reference_decode(const ModelWeights& w, std::span<const int32_t> prompt, int32_t token,
                                    const std::vector<std::vector<int32_t>>& kept)
{
    const ModelConfig& c = w.config;
    const int hd = c.head_dim, kv_dim = c.kv_dim(), group = c.n_heads / c.n_kv_heads;
    const LayerInputs before = layer_inputs(w, prompt, 0);
    LayerInputs now = layer_inputs(w, std::span<const int32_t>(&token, 1), static_cast<int>(prompt.size()));
    std::vector<float> attended(static_cast<size_t>(c.n_heads) * hd);
    for (int g = 0; g < c.n_kv_heads; ++g) {
        std::vector<float> k, v;
        auto take = [&](const std::vector<float>& keys, const std::vector<float>& values, int entry) {
            const auto at = static_cast<ptrdiff_t>(entry) * kv_dim + static_cast<ptrdiff_t>(g) * hd;
            k.insert(k.end(), keys.begin() + at, keys.begin() + at + hd);
            v.insert(v.end(), values.begin() + at, values.begin() + at + hd);
        };
        for (int32_t position : kept[static_cast<size_t>(g)])
            take(before.k, before.v, position);
        take(now.k, now.v, 0);
        const int len = static_cast<int>(k.size()) / hd;
        cpu::attention(now.q.data() + static_cast<ptrdiff_t>(g) * group * hd, 1, k.data(), v.data(), len,
                       {group, 1, hd}, attended.data() + static_cast<ptrdiff_t>(g) * group * hd, nullptr, nullptr);
    }
    std::vector<float>& h = now.hidden;
    cpu::add_in_place(h.data(), project(w.layers[0].wo, attended, 1).data(), c.dim);
    std::vector<float> x(h.size());
    cpu::rms_norm(h.data(), w.layers[0].ffn_norm, 1, c.dim, c.rms_eps, x.data());
    std::vector<float> gate = project(w.layers[0].w_gate, x, 1);
    const std::vector<float> up = project(w.layers[0].w_up, x, 1);
    cpu::swiglu(gate.data(), up.data(), c.ffn_dim);
    cpu::add_in_place(h.data(), project(w.layers[0].w_down, gate, 1).data(), c.dim);
    cpu::rms_norm(h.data(), w.output_norm, 1, c.dim, c.rms_eps, x.data());
    return project(w.output, x, 1);
}

std::vector<int32_t> head_positions(const KvCache& cache, int layer, int head)
{
    const auto p = cache.head_positions(layer, head);
    return {p.begin(), p.end()};
}

} // namespace

class SnapKVPerHeadTest : public QObject {
    Q_OBJECT
private slots:
    void probe_sums_each_group_of_query_heads()
    {
        // 5 new rows at the end of 12 entries; rows 2..4 probed with weights 1, 0.5, 2.
        const cpu::AttentionShape shape{6, 2, 8};
        const int len = 12, n_q = 5, hd = shape.head_dim, group = shape.n_heads / shape.n_kv_heads;
        std::mt19937 rng(7);
        const std::vector<float> q = test::random_vector(static_cast<size_t>(n_q) * shape.n_heads * hd, rng);
        const std::vector<float> k = test::random_vector(static_cast<size_t>(len) * shape.n_kv_heads * hd, rng);
        const std::vector<float> v = test::random_vector(k.size(), rng);
        const AttentionProbe probe{2, {1.0f, 0.5f, 2.0f}, true};
        std::vector<float> out(q.size()), scores(static_cast<size_t>(shape.n_kv_heads) * len);
        cpu::attention(q.data(), n_q, k.data(), v.data(), len, shape, out.data(), &probe, scores.data());

        std::vector<double> expected(scores.size(), 0.0);
        for (int i = probe.first_row; i < n_q; ++i)
            for (int h = 0; h < shape.n_heads; ++h) {
                const int g = h / group, visible = len - n_q + i + 1;
                std::vector<double> p(static_cast<size_t>(visible));
                double max = -1e30, sum = 0;
                for (int j = 0; j < visible; ++j) {
                    double dot = 0;
                    for (int d = 0; d < hd; ++d)
                        dot += double(q[static_cast<size_t>((i * shape.n_heads + h) * hd + d)]) *
                               k[static_cast<size_t>((j * shape.n_kv_heads + g) * hd + d)];
                    p[static_cast<size_t>(j)] = dot / std::sqrt(double(hd));
                    max = std::max(max, p[static_cast<size_t>(j)]);
                }
                for (double& x : p)
                    sum += x = std::exp(x - max);
                for (int j = 0; j < visible; ++j)
                    expected[static_cast<size_t>(g * len + j)] +=
                        probe.row_weights[static_cast<size_t>(i - probe.first_row)] * p[static_cast<size_t>(j)] / sum;
            }
        for (size_t j = 0; j < scores.size(); ++j)
            QVERIFY2(std::abs(scores[j] - expected[j]) < 1e-5, qPrintable(QString::number(j)));
        // The two groups attend differently, and their sum over the query heads is the
        // per-layer probe's average times the heads.
        QVERIFY(test::max_abs_diff(std::vector<float>(scores.begin(), scores.begin() + len),
                                   std::vector<float>(scores.begin() + len, scores.end())) > 0.05);
        AttentionProbe averaged = probe;
        averaged.per_kv_head = false;
        std::vector<float> layer(static_cast<size_t>(len));
        cpu::attention(q.data(), n_q, k.data(), v.data(), len, shape, out.data(), &averaged, layer.data());
        for (int j = 0; j < len; ++j)
            QVERIFY(std::abs(layer[static_cast<size_t>(j)] * shape.n_heads -
                             (scores[static_cast<size_t>(j)] + scores[static_cast<size_t>(len + j)])) < 1e-5);
    }

    void heads_keep_their_own_peaks_and_the_window()
    {
        // 20 entries, window 4, budget 7: head 0 attends to 2, 5, 8; head 1 to 11, 14, 15.
        auto policy = make_compression_policy(
            [] {
                CompressionConfig c = per_head_config(CompressionPolicyKind::SnapKV, 4, 1);
                c.layer_budgets = {7};
                return c;
            }(),
            1);
        policy->begin_prefill(20, 0);
        const auto probe = policy->prefill_probe(0, 20);
        QVERIFY(probe && probe->per_kv_head);
        QCOMPARE(probe->first_row, 16);
        std::vector<float> scores(40, 0.01f);
        for (int j : {2, 5, 8})
            scores[static_cast<size_t>(j)] = 1.0f + 0.1f * j;
        for (int j : {11, 14, 15})
            scores[static_cast<size_t>(20 + j)] = 1.0f + 0.1f * j;
        const PrefillDecision d = policy->after_prefill_layer(0, 20, 20, scores);
        QVERIFY(!d.keep_rows && !d.keep_entries && d.keep_entries_per_head);
        QCOMPARE(d.keep_entries_per_head->size(), 2u);
        QCOMPARE((*d.keep_entries_per_head)[0], joined({2, 5, 8}, range(16, 20)));
        QCOMPARE((*d.keep_entries_per_head)[1], joined({11, 14, 15}, range(16, 20)));
        // Everything fits: no head selects.
        policy->begin_prefill(6, 0);
        QVERIFY(!policy->after_prefill_layer(0, 6, 6, std::vector<float>(12, 1.0f)).keep_entries_per_head);
    }

    void per_head_is_refused_where_it_does_not_exist()
    {
        // Policies that select per layer refuse it, by name, as does a config file.
        for (CompressionPolicyKind kind : {CompressionPolicyKind::Full, CompressionPolicyKind::Pyramid,
                                           CompressionPolicyKind::Local, CompressionPolicyKind::H2O}) {
            CompressionConfig c = per_head_config(kind, 32, 7);
            QVERIFY_THROWS_EXCEPTION(Error, c.validate());
        }
        QVERIFY_THROWS_EXCEPTION(Error, compression_config_from_json(R"({"policy": "h2o", "kv_selection": "per-head"})"));
        QVERIFY_THROWS_EXCEPTION(Error, compression_config_from_json(R"({"kv_selection": "per-token"})"));
        const CompressionConfig c = per_head_config(CompressionPolicyKind::PyramidKV, 32, 7);
        QVERIFY(compression_config_from_json(compression_config_to_json(c)) == c);
        QVERIFY(CompressionConfig{}.kv_selection == KvSelection::PerLayer);

        // A store that keeps one set of entries for all heads refuses per-head lists.
        struct SharedStore final : KvLayerStore {
            int size() const override { return 4; }
            void keep(std::span<const int>) override {}
            void reserve(int) override {}
            void release_unused() override {}
            size_t bytes() const override { return 0; }
        } shared;
        const std::vector<std::vector<int>> lists = {{0, 1}, {2, 3}};
        QVERIFY_THROWS_EXCEPTION(Error, shared.keep_per_head(lists));
    }

    void decode_attends_over_each_heads_entries()
    {
        const ModelWeights weights = generate_model_weights(one_layer_config(), TensorType::F32, 5, true);
        CpuBackend backend(weights);
        CompressionConfig c = per_head_config(CompressionPolicyKind::SnapKV, 4, 3);
        c.layer_budgets = {12};
        const std::vector<int32_t> prompt = test::random_tokens(40, 3, 0, 64);
        InferenceSession session(backend, c);
        session.prefill(prompt);

        const KvCache& cache = session.cache();
        QVERIFY(cache.per_head(0));
        QCOMPARE(cache.length(0), 12);
        QVERIFY_THROWS_EXCEPTION(Error, cache.positions(0));  // no one list for the layer
        std::vector<std::vector<int32_t>> kept;
        for (int g = 0; g < 2; ++g) {
            kept.push_back(head_positions(cache, 0, g));
            QCOMPARE(kept.back().size(), 12u);
            QVERIFY(std::is_sorted(kept.back().begin(), kept.back().end()));
            QCOMPARE(std::vector<int32_t>(kept.back().end() - 4, kept.back().end()),
                     (std::vector<int32_t>{36, 37, 38, 39}));  // the window
        }
        QVERIFY(kept[0] != kept[1]);  // the two groups attend to different tokens

        const int32_t token = 17;
        const std::vector<float> logits = session.decode(token);
        const std::vector<float> expected = reference_decode(weights, prompt, token, kept);
        QVERIFY2(test::max_abs_diff(logits, expected) < 1e-4, qPrintable(QString::number(test::max_abs_diff(logits, expected))));
        // The comparison sees which head kept what: the heads' lists swapped give other logits.
        const std::vector<float> swapped = reference_decode(weights, prompt, token, {kept[1], kept[0]});
        QVERIFY(test::max_abs_diff(logits, swapped) > 1e-3);
        std::vector<int32_t> grown = kept[1];
        grown.push_back(40);
        QCOMPARE(head_positions(cache, 0, 1), grown);
        QCOMPARE(cache.length(0), 13);
    }

    void making_room_keeps_the_heads_equal()
    {
        const ModelWeights weights = generate_model_weights(one_layer_config(), TensorType::F32, 5, true);
        CpuBackend backend(weights);
        CompressionConfig c = per_head_config(CompressionPolicyKind::PyramidKV, 4, 1);
        c.layer_budgets = {30};
        c.pyramid.sink_tokens = 2;
        InferenceSession session(backend, c);
        session.prefill(test::random_tokens(100, 9, 0, 64));
        const KvCache& cache = session.cache();
        QVERIFY(cache.per_head(0));
        const int freed = session.make_room(64);
        QVERIFY(freed > 0);
        QVERIFY(cache.length(0) <= 30);
        for (int g = 0; g < 2; ++g) {
            const std::vector<int32_t> p = head_positions(cache, 0, g);
            QCOMPARE(static_cast<int>(p.size()), cache.length(0));
            QVERIFY(std::is_sorted(p.begin(), p.end()));
            QCOMPARE(p.back(), session.next_position() - 1);  // renumbered up to the newest
        }
        session.decode(5);
        QCOMPARE(head_positions(cache, 0, 0).back(), session.next_position() - 1);
    }
};

QTEST_APPLESS_MAIN(SnapKVPerHeadTest)
#include "test_snapkv_per_head.moc"
