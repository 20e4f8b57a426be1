// Named model shapes and generated weights: the exact LLaMA-2 dimensions and parameter counts,
// determinism, the documented tensor numbering and value rule, the statistics of the values,
// weights generated off the host (no data, refused by the CPU backend), and the `tiny` shape
// running through the CPU backend and an inference session.
#include <QtTest>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "backend/cpu_backend.h"
#include "generate/inference_session.h"
#include "kv/compression_config.h"
#include "model/model_shapes.h"
#include "model/synthetic_value.h"
#include "model/synthetic_weights.h"
#include "util/error.h"
#include "util/float16.h"

using namespace pyramid;

namespace {

// Every view of a model, in ModelWeights / LayerWeights order (output skipped when tied).
std::vector<const WeightView*> all_views(const ModelWeights& w)
{
    std::vector<const WeightView*> out = {&w.token_embedding, &w.output_norm};
    if (w.output.data != w.token_embedding.data || !w.output.data)
        out.push_back(&w.output);
    for (const LayerWeights& l : w.layers)
        out.insert(out.end(), {&l.attn_norm, &l.wq, &l.wk, &l.wv, &l.wo, &l.ffn_norm, &l.w_gate, &l.w_up, &l.w_down});
    return out;
}

// LLaMA's parameter count from its hyperparameters alone (untied, no biases).
int64_t parameters_from_config(const ModelConfig& c)
{
    const int64_t d = c.dim, q = int64_t(c.n_heads) * c.head_dim, kv = c.kv_dim(), f = c.ffn_dim;
    const int64_t per_layer = d * q + 2 * d * kv + q * d + 3 * d * f + 2 * d;
    return 2 * int64_t(c.n_vocab) * d + d + c.n_layers * per_layer;
}

ModelConfig small_config()
{
    return ModelConfig{.name = "test", .n_vocab = 4096, .dim = 64, .ffn_dim = 96, .n_layers = 2, .n_heads = 4,
                       .n_kv_heads = 2, .head_dim = 16, .context_length = 128};
}

// Rows of whole k-quant blocks (256 elements) everywhere, and enough layers for the mix.
ModelConfig block_config()
{
    ModelConfig c = small_config();
    c.n_vocab = 512;
    c.dim = 256;
    c.ffn_dim = 512;
    c.n_layers = 3;
    c.n_heads = 4;
    c.n_kv_heads = 2;
    c.head_dim = 64;
    return c;
}

float decode_one(const WeightView& v, int64_t i)
{
    const size_t size = v.type == TensorType::F32 ? 4 : 2;
    const std::byte* p = v.data + static_cast<size_t>(i) * size;
    if (v.type == TensorType::F32) {
        float f;
        std::memcpy(&f, p, 4);
        return f;
    }
    uint16_t h;
    std::memcpy(&h, p, 2);
    return v.type == TensorType::F16 ? fp16_to_fp32(h) : bf16_to_fp32(h);
}

float round_to(TensorType type, float x)
{
    if (type == TensorType::F16)
        return fp16_to_fp32(fp32_to_fp16(x));
    if (type == TensorType::BF16)
        return bf16_to_fp32(fp32_to_bf16(x));
    return x;
}

const TensorType kTypes[] = {TensorType::F32, TensorType::F16, TensorType::BF16};

} // namespace

class SyntheticWeightsTest : public QObject {
    Q_OBJECT

private slots:
    void shapes_are_listed_in_order()
    {
        const auto& shapes = model_shapes();
        QCOMPARE(shapes.size(), size_t(4));
        const char* names[] = {"tiny", "small", "llama2-7b", "llama2-13b"};
        for (size_t i = 0; i < shapes.size(); ++i) {
            const ModelConfig& c = shapes[i].config;
            QCOMPARE(shapes[i].name, std::string(names[i]));
            QCOMPARE(c.name, shapes[i].name);
            QVERIFY(!shapes[i].description.empty());
            QCOMPARE(c.architecture, std::string("llama"));
            QCOMPARE(c.n_vocab, 32000);
            QCOMPARE(c.head_dim * c.n_heads, c.dim);
            QCOMPARE(c.n_kv_heads, c.n_heads);
            QCOMPARE(c.rope_theta, 10000.0f);
            QCOMPARE(c.rms_eps, 1e-5f);
            QVERIFY(c.rope_layout == RopeLayout::RotateHalf);
            QVERIFY(!c.tied_output);
            QCOMPARE(&find_model_shape(names[i]), &shapes[i]);
        }
        const ModelConfig& tiny = find_model_shape("tiny").config;
        QCOMPARE((std::vector<int>{tiny.dim, tiny.ffn_dim, tiny.n_layers, tiny.n_heads, tiny.context_length}),
                 (std::vector<int>{288, 768, 6, 6, 1024}));
        const ModelConfig& small = find_model_shape("small").config;
        QCOMPARE((std::vector<int>{small.dim, small.ffn_dim, small.n_layers, small.n_heads, small.context_length}),
                 (std::vector<int>{1024, 2816, 8, 16, 2048}));
    }

    // The published LLaMA-2 dimensions (Touvron et al. 2023, and the Hugging Face configs).
    void llama2_shapes_have_the_published_dimensions_and_sizes()
    {
        struct Expected {
            const char* name;
            int dim, ffn_dim, layers, heads, head_dim, context;
            int64_t parameters;
        };
        // 7B: 2*32000*4096 + 4096 + 32*(4*4096^2 + 3*4096*11008 + 2*4096) = 6,738,415,616;
        // 13B: 2*32000*5120 + 5120 + 40*(4*5120^2 + 3*5120*13824 + 2*5120) = 13,015,864,320.
        for (const Expected& e : {Expected{"llama2-7b", 4096, 11008, 32, 32, 128, 4096, 6'738'415'616},
                                  Expected{"llama2-13b", 5120, 13824, 40, 40, 128, 4096, 13'015'864'320}}) {
            const ModelConfig& c = find_model_shape(e.name).config;
            QCOMPARE(c.dim, e.dim);
            QCOMPARE(c.ffn_dim, e.ffn_dim);
            QCOMPARE(c.n_layers, e.layers);
            QCOMPARE(c.n_heads, e.heads);
            QCOMPARE(c.n_kv_heads, e.heads);
            QCOMPARE(c.head_dim, e.head_dim);
            QCOMPARE(c.context_length, e.context);
            QCOMPARE(parameters_from_config(c), e.parameters);

            // The generator's views hold exactly those parameters, in the expected types.
            const ModelWeights w = generate_model_weights(c, TensorType::F16, 1, false);
            int64_t elements = 0;
            size_t bytes = 0;
            for (const WeightView* v : all_views(w)) {
                elements += v->elements();
                bytes += v->bytes();
            }
            QCOMPARE(elements, e.parameters);
            const int64_t norm_elements = int64_t(2 * e.layers + 1) * e.dim;
            QCOMPARE(int64_t(bytes), 2 * (e.parameters - norm_elements) + 4 * norm_elements);
        }
    }

    void unknown_shape_lists_the_known_names()
    {
        try {
            find_model_shape("llama2-70b");
            QFAIL("an unknown shape must throw");
        } catch (const Error& e) {
            const std::string message = e.what();
            QVERIFY2(message.find("llama2-70b") != std::string::npos, e.what());
            for (const ModelShape& s : model_shapes())
                QVERIFY2(message.find(s.name) != std::string::npos, e.what());
        }
    }

    void storage_names_parse_and_print()
    {
        for (const char* name : {"f32", "f16", "bf16", "q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_k", "q3_k", "q4_k",
                                 "q5_k", "q6_k", "q4_k_m", "q5_k_m"})
            QCOMPARE(SyntheticStorage::parse(name).name(), std::string(name));
        const SyntheticStorage m = SyntheticStorage::parse("Q4_K_M");
        QVERIFY(m.base == TensorType::Q4_K && m.medium_mix && m.quantized());
        QVERIFY(!SyntheticStorage::parse("bf16").quantized());
        try {
            SyntheticStorage::parse("q4_k_s");
            QFAIL("q4_k_s must be refused");
        } catch (const Error& e) {
            const std::string message = e.what();
            QVERIFY2(message.find("q4_k_s") != std::string::npos && message.find("q5_k_m") != std::string::npos,
                     e.what());
        }
    }

    // llama.cpp's Q4_K_M for LLaMA-2-7B: Q6_K for the output, and for attn_v and ffn_down of
    // layers 0-3, 6, 9, ..., 27 and 28-31 (use_more_bits); Q4_K for everything else.
    void medium_mix_follows_llama_cpp()
    {
        const SyntheticStorage mix = SyntheticStorage::parse("q4_k_m");
        const std::vector<int> more_bits{0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31};
        QVERIFY(mix.type_of(synthetic::kOutput, 32) == TensorType::Q6_K);
        QVERIFY(mix.type_of(synthetic::kTokenEmbedding, 32) == TensorType::Q4_K);
        QVERIFY(mix.type_of(synthetic::kOutputNorm, 32) == TensorType::F32);
        for (int layer = 0; layer < 32; ++layer) {
            const bool more = std::find(more_bits.begin(), more_bits.end(), layer) != more_bits.end();
            for (int k = 0; k < 9; ++k) {
                const TensorType t = mix.type_of(synthetic::layer_tensor(layer, k), 32);
                const TensorType expected = k == 0 || k == 5                  ? TensorType::F32
                                            : (k == 3 || k == 8) && more ? TensorType::Q6_K
                                                                          : TensorType::Q4_K;
                QVERIFY2(t == expected, qPrintable(QString("layer %1, tensor %2").arg(layer).arg(k)));
            }
        }
        QVERIFY(SyntheticStorage(TensorType::Q8_0).type_of(synthetic::kOutput, 32) == TensorType::Q8_0);
    }

    // Random blocks with finite scales: every element decodes to a finite value, spread like
    // the float generator's (RMS s/sqrt(3)); repeatable per seed; made on the host even when
    // float weights would not be.
    void quantized_weights_are_valid_blocks_of_the_float_spread()
    {
        const ModelConfig c = block_config();
        for (const char* name : {"q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k", "q4_k_m"}) {
            const SyntheticStorage storage = SyntheticStorage::parse(name);
            const ModelWeights w = generate_model_weights(c, storage, 11, false);
            const ModelWeights again = generate_model_weights(c, storage, 11, false);
            const ModelWeights other = generate_model_weights(c, storage, 12, false);
            const auto views = all_views(w), views_again = all_views(again), views_other = all_views(other);
            for (size_t t = 0; t < views.size(); ++t) {
                const WeightView& v = *views[t];
                const std::string what = std::string(name) + " " + v.name;
                if (v.rows == 1) {  // norms: off the host, like float weights
                    QVERIFY2(v.data == nullptr, what.c_str());
                    continue;
                }
                QVERIFY2(v.data != nullptr && is_block_quantized(v.type), what.c_str());
                QCOMPARE(v.bytes(), static_cast<size_t>(v.rows) * tensor_row_bytes(v.type, v.cols));
                QVERIFY2(std::memcmp(v.data, views_again[t]->data, v.bytes()) == 0, what.c_str());
                QVERIFY2(std::memcmp(v.data, views_other[t]->data, v.bytes()) != 0, what.c_str());
                std::vector<float> values(static_cast<size_t>(v.elements()));
                tensor_type_traits(v.type).to_float(v.data, values.data(), v.elements());
                double sum_sq = 0;
                for (float x : values) {
                    QVERIFY2(std::isfinite(x), what.c_str());
                    sum_sq += double(x) * x;
                }
                const double rms = std::sqrt(sum_sq / double(values.size()));
                const double expected = synthetic::matrix_scale(v.cols) / std::sqrt(3.0);
                QVERIFY2(rms > 0.5 * expected && rms < 2.0 * expected,
                         qPrintable(QString("%1: RMS %2, float weights %3").arg(what.c_str()).arg(rms).arg(expected)));
            }
        }
    }

    void refuses_what_it_cannot_generate()
    {
        try {
            generate_model_weights(small_config(), TensorType::Q4_K, 1, true);  // dim 64: no whole 256-blocks
            QFAIL("Q4_K rows of 64 must be refused");
        } catch (const Error& e) {
            const std::string message = e.what();
            QVERIFY2(message.find("token_embd.weight") != std::string::npos && message.find("q4_K") != std::string::npos,
                     e.what());
        }
        ModelConfig bad = small_config();
        bad.ffn_dim = 0;
        QVERIFY_THROWS_EXCEPTION(Error, generate_model_weights(bad, TensorType::F16, 1, false));
    }

    void views_are_named_and_shaped_like_a_loaded_model()
    {
        const ModelConfig c = small_config();
        const ModelWeights w = generate_model_weights(c, TensorType::BF16, 5, true);
        QCOMPARE(w.token_embedding.name, std::string("token_embd.weight"));
        QCOMPARE(w.layers[1].w_down.name, std::string("blk.1.ffn_down.weight"));
        QCOMPARE(w.layers[0].wk.rows, int64_t(c.kv_dim()));
        QCOMPARE(w.layers[0].wk.cols, int64_t(c.dim));
        QCOMPARE(w.layers[0].wo.rows, int64_t(c.dim));
        QCOMPARE(w.layers[0].wo.cols, int64_t(c.n_heads) * c.head_dim);
        QCOMPARE(w.layers[1].w_down.cols, int64_t(c.ffn_dim));
        QVERIFY(w.output.data != w.token_embedding.data);
        QVERIFY(w.synthetic.has_value());
        QCOMPARE(w.synthetic->seed, uint64_t(5));
        QVERIFY(w.synthetic->matrix_type == TensorType::BF16);
        for (const WeightView* v : all_views(w)) {
            QVERIFY2(v->data != nullptr, v->name.c_str());
            QVERIFY(v->type == (v->rows == 1 ? TensorType::F32 : TensorType::BF16));
        }

        ModelConfig tied = c;
        tied.tied_output = true;
        const ModelWeights t = generate_model_weights(tied, TensorType::F16, 5, true);
        QCOMPARE(t.output.data, t.token_embedding.data);
        QCOMPARE(t.output.name, t.token_embedding.name);
    }

    // The documented rule (model/synthetic_value.h) that the GPU generator follows too.
    void values_follow_the_documented_numbering_and_rule()
    {
        const ModelConfig c = small_config();
        const uint64_t seed = 0x1234;
        for (TensorType type : kTypes) {
            const ModelWeights w = generate_model_weights(c, type, seed, true);
            struct Case {
                const WeightView* view;
                uint32_t tensor;
            };
            const Case cases[] = {{&w.token_embedding, synthetic::kTokenEmbedding},
                                  {&w.output, synthetic::kOutput},
                                  {&w.layers[0].wq, synthetic::layer_tensor(0, 1)},
                                  {&w.layers[1].wk, synthetic::layer_tensor(1, 2)},
                                  {&w.layers[1].wo, synthetic::layer_tensor(1, 4)},
                                  {&w.layers[1].w_up, synthetic::layer_tensor(1, 7)},
                                  {&w.layers[1].w_down, synthetic::layer_tensor(1, 8)}};
            for (const Case& k : cases) {
                QVERIFY(!synthetic::is_norm_tensor(k.tensor));
                const uint64_t key = synthetic::tensor_key(seed, k.tensor);
                const float scale = synthetic::matrix_scale(k.view->cols);
                QCOMPARE(scale, float(1.0 / std::sqrt(double(k.view->cols))));
                // Every element, bit for bit: the generator's fast rounding must be fp32_to_fp16's
                // and fp32_to_bf16's (the embedding alone holds ~100 half-precision subnormals).
                int64_t mismatches = 0, first = -1;
                for (int64_t i = 0; i < k.view->elements(); ++i) {
                    const float expected = round_to(type, synthetic::value(key, uint64_t(i), scale));
                    if (std::bit_cast<uint32_t>(decode_one(*k.view, i)) != std::bit_cast<uint32_t>(expected)) {
                        ++mismatches;
                        first = first < 0 ? i : first;
                    }
                }
                QVERIFY2(mismatches == 0, qPrintable(QString("%1: %2 values differ, first [%3]")
                                                         .arg(k.view->name.c_str())
                                                         .arg(mismatches)
                                                         .arg(first)));
            }
            for (uint32_t norm : {synthetic::kOutputNorm, synthetic::layer_tensor(0, 0), synthetic::layer_tensor(1, 5)})
                QVERIFY(synthetic::is_norm_tensor(norm));
            for (const WeightView* v : {&w.output_norm, &w.layers[0].attn_norm, &w.layers[1].ffn_norm})
                for (int64_t i = 0; i < v->cols; ++i)
                    QCOMPARE(decode_one(*v, i), 1.0f);
        }
    }

    void generation_is_deterministic()
    {
        const ModelConfig c = small_config();
        for (TensorType type : kTypes) {
            const ModelWeights a = generate_model_weights(c, type, 42, true);
            const ModelWeights b = generate_model_weights(c, type, 42, true);
            const ModelWeights other = generate_model_weights(c, type, 43, true);
            const auto va = all_views(a), vb = all_views(b), vo = all_views(other);
            for (size_t t = 0; t < va.size(); ++t) {
                QVERIFY(va[t]->data != vb[t]->data);
                QVERIFY2(std::memcmp(va[t]->data, vb[t]->data, va[t]->bytes()) == 0, va[t]->name.c_str());
                if (va[t]->rows == 1)
                    continue;  // norms are ones whatever the seed
                // Another seed changes (nearly) every value.
                int64_t same = 0;
                for (int64_t i = 0; i < va[t]->elements(); ++i)
                    same += decode_one(*va[t], i) == decode_one(*vo[t], i);
                QVERIFY2(same * 50 < va[t]->elements(), va[t]->name.c_str());
            }
            // Tensors of one shape differ from each other.
            QVERIFY(std::memcmp(a.layers[0].w_gate.data, a.layers[0].w_up.data, a.layers[0].w_up.bytes()) != 0);
            QVERIFY(std::memcmp(a.layers[0].wq.data, a.layers[1].wq.data, a.layers[0].wq.bytes()) != 0);
        }
    }

    // Uniform in [-s, s]: mean 0, variance s^2/3, flat histogram. With n = 262144 values the
    // standard error of the mean is s * 0.0011 and of the mean square s^2 * 0.00058; the
    // tolerances are over 15 of those, and the seed is fixed, so the check cannot flake but a
    // biased or narrow generator fails it.
    void values_are_bounded_and_uniform()
    {
        const ModelConfig c = small_config();
        for (TensorType type : kTypes) {
            const ModelWeights w = generate_model_weights(c, type, 7, true);
            const WeightView& v = w.token_embedding;  // 4096 x 64
            const double s = synthetic::matrix_scale(v.cols);
            const float bound = round_to(type, float(s));  // rounding is monotonic
            const int64_t n = v.elements();
            double sum = 0, sum_sq = 0;
            constexpr int kBins = 16;
            std::vector<int64_t> bins(kBins, 0);
            float lo = 0, hi = 0;
            for (int64_t i = 0; i < n; ++i) {
                const float x = decode_one(v, i);
                QVERIFY(std::isfinite(x));
                lo = std::min(lo, x);
                hi = std::max(hi, x);
                sum += x;
                sum_sq += double(x) * x;
                bins[std::clamp(int((x / s + 1.0) / 2.0 * kBins), 0, kBins - 1)]++;
            }
            QVERIFY2(-bound <= lo && hi <= bound, qPrintable(QString("[%1, %2] vs %3").arg(lo).arg(hi).arg(bound)));
            QVERIFY(lo < -0.99 * s && hi > 0.99 * s);  // the whole range is used
            QVERIFY2(std::abs(sum / n) < 0.02 * s, qPrintable(QString::number(sum / n / s)));
            QVERIFY2(std::abs(sum_sq / n - s * s / 3) < 0.01 * s * s, qPrintable(QString::number(sum_sq / n / (s * s))));
            for (int64_t count : bins)
                QVERIFY2(std::abs(double(count) - double(n) / kBins) < 0.1 * double(n) / kBins,
                         qPrintable(QString::number(count)));
        }
    }

    void progress_rises_to_one()
    {
        std::vector<double> seen;
        generate_model_weights(small_config(), TensorType::F16, 1, true, [&](double f) { seen.push_back(f); });
        QCOMPARE(seen.size(), all_views(generate_model_weights(small_config(), TensorType::F16, 1, false)).size());
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));
        QVERIFY(seen.front() > 0.0);
        QCOMPARE(seen.back(), 1.0);

        seen.clear();
        generate_model_weights(small_config(), TensorType::F16, 1, false, [&](double f) { seen.push_back(f); });
        QCOMPARE(seen, std::vector<double>{1.0});
    }

    void weights_off_the_host_have_no_data_and_the_cpu_refuses_them()
    {
        const ModelWeights w = generate_model_weights(find_model_shape("llama2-13b").config, TensorType::F16, 9, false);
        QVERIFY(w.synthetic.has_value());
        QCOMPARE(w.synthetic->seed, uint64_t(9));
        QVERIFY(w.synthetic->matrix_type == TensorType::F16);
        QVERIFY(w.storage.empty());
        for (const WeightView* v : all_views(w)) {
            QVERIFY2(v->data == nullptr, v->name.c_str());
            QVERIFY(!v->name.empty());
            QVERIFY(v->rows > 0 && v->cols > 0);
        }
        try {
            CpuBackend backend(w);
            QFAIL("the CPU backend must refuse weights without data");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("generated weights must be made on the host for the CPU backend") !=
                         std::string::npos,
                     e.what());
        }
    }

    void tiny_runs_on_the_cpu() { runs_on_the_cpu(generate_model_weights(find_model_shape("tiny").config, TensorType::F16, 3, true)); }

    void q4_k_m_runs_on_the_cpu()
    {
        runs_on_the_cpu(generate_model_weights(block_config(), SyntheticStorage::parse("q4_k_m"), 3, true));
    }

private:
    // A prefill and two decode steps give finite logits of a bounded, non-flat spread.
    void runs_on_the_cpu(const ModelWeights& w)
    {
        CpuBackend backend(w);
        InferenceSession session(backend, CompressionConfig{});
        // Longer than the PyramidInfer policy's minimum context, so it compresses too.
        std::vector<int32_t> prompt(100);
        for (size_t i = 0; i < prompt.size(); ++i)
            prompt[i] = int32_t((i * 7919 + 1) % w.config.n_vocab);
        std::vector<float> logits = session.prefill(prompt);
        for (int step = 0; step < 2; ++step) {
            QCOMPARE(logits.size(), size_t(w.config.n_vocab));
            double sum = 0, sum_sq = 0;
            for (float x : logits) {
                QVERIFY(std::isfinite(x));
                sum += x;
                sum_sq += double(x) * x;
            }
            const double variance = sum_sq / logits.size() - (sum / logits.size()) * (sum / logits.size());
            QVERIFY2(variance > 1e-6 && variance < 1e4, qPrintable(QString::number(variance)));  // bounded, not flat
            const auto best = std::max_element(logits.begin(), logits.end()) - logits.begin();
            logits = session.decode(int32_t(best));
        }
        QCOMPARE(session.next_position(), 102);
    }
};

QTEST_APPLESS_MAIN(SyntheticWeightsTest)
#include "synthetic_weights_test.moc"
