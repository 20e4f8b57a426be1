// pyramid-eval's planning and reporting pieces: which runs a sweep makes, the paired
// statistics, the tables and JSON (and reading it back, and merging reports made apart), and
// the axis arithmetic of the plots.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "chart_axes.h"
#include "eval_report.h"
#include "sweep.h"
#include "util/error.h"

using namespace pyramid;

namespace {

PerplexityResult result_with(std::vector<double> window_nll, double kv_fraction)
{
    PerplexityResult r;
    r.windows = static_cast<int>(window_nll.size());
    r.scored_tokens = r.windows * 4L;
    double sum = 0.0;
    for (double v : window_nll)
        sum += v;
    r.mean_nll = sum / r.windows;
    r.perplexity = std::exp(r.mean_nll);
    r.window_mean_nll = std::move(window_nll);
    r.mean_layer_entries = {10.0, 8.0};
    r.prefill_lengths = {9.0, 7.0};
    r.mean_entries_per_layer = 9.0;
    r.kv_fraction = kv_fraction;
    return r;
}

EvalReport two_run_report(double pyramid_first_window_nll)
{
    EvalReport report;
    report.model = "/models/m.gguf";
    report.text = "../shared/t.txt";
    report.windows = {64, 16, 2, WindowAlign::Tokens, ""};
    CompressionConfig pyr;
    pyr.pyramid.prefill_decay_ratio = 0.5;
    report.runs = {
        {{"full", kSeriesFull, "no compression", CompressionConfig::full_cache()}, result_with({1.0, 1.2}, 1.0)},
        {{"pyramid d=0.5", kSeriesPyramid, "decay=0.5", pyr}, result_with({pyramid_first_window_nll, 1.4}, 0.6)},
    };
    return report;
}

} // namespace

class EvalReportTest : public QObject {
    Q_OBJECT
private slots:
    void decay_sweep_matches_bytes_and_adds_full()
    {
        CompressionConfig base;
        base.pyramid.min_context_length = 16;
        base.layer_budgets = {5, 5, 5};  // a decay sweep must not use fixed budgets
        const auto runs = plan_runs(base, {{0.3, 0.9}, {64}}, 3);
        QCOMPARE(runs.size(), size_t(1 + 2 * 3 + 2));
        QCOMPARE(runs[0].config.policy, CompressionPolicyKind::Full);
        const std::vector<CompressionPolicyKind> kinds{CompressionPolicyKind::Pyramid, CompressionPolicyKind::Local,
                                                       CompressionPolicyKind::H2O};
        for (size_t i = 0; i < 3; ++i) {
            const EvalRun& r = runs[1 + i];
            QCOMPARE(r.config.policy, kinds[i]);
            QCOMPARE(r.config.pyramid.prefill_decay_ratio, 0.3);
            QCOMPARE(r.config.pyramid.min_context_length, 16);
            QVERIFY(r.config.layer_budgets.empty());  // the core derives PyramidInfer's bytes
        }
        QCOMPARE(runs[4].config.pyramid.prefill_decay_ratio, 0.9);
        QCOMPARE(runs[7].config.policy, CompressionPolicyKind::Local);
        QCOMPARE(runs[7].config.layer_budgets, std::vector<int>(3, 64));
        QCOMPARE(runs[8].config.policy, CompressionPolicyKind::H2O);
        QCOMPARE(QString::fromStdString(runs[8].series), QString(kSeriesH2OFixed));
    }

    void fraction_sweep_runs_every_baseline_and_leaves_pyramid_alone()
    {
        CompressionConfig base;
        base.layer_budgets = {5, 5, 5};
        const auto runs = plan_runs(base, {{0.5}, {}, {0.75, 0.25}}, 3);
        // full, pyramid d=0.5 (without matched baselines), then four baselines per fraction
        QCOMPARE(runs.size(), size_t(1 + 1 + 2 * 4));
        QCOMPARE(runs[1].config.policy, CompressionPolicyKind::Pyramid);
        const std::vector<CompressionPolicyKind> kinds{CompressionPolicyKind::Local, CompressionPolicyKind::H2O,
                                                       CompressionPolicyKind::SnapKV, CompressionPolicyKind::PyramidKV};
        for (size_t i = 0; i < 8; ++i) {
            const EvalRun& r = runs[2 + i];
            QCOMPARE(r.config.policy, kinds[i % 4]);
            QCOMPARE(r.config.budget_fraction, i < 4 ? 0.75 : 0.25);
            QVERIFY(r.config.layer_budgets.empty());
            QCOMPARE(QString::fromStdString(r.series), QString::fromStdString(to_string(kinds[i % 4])));
        }
        QVERIFY_THROWS_EXCEPTION(Error, plan_runs(base, {{}, {}, {1.5}}, 3));
        QVERIFY_THROWS_EXCEPTION(Error, plan_runs(base, {{}, {}, {0.0}}, 3));
    }

    void without_a_sweep_the_policy_runs_beside_full()
    {
        CompressionConfig base;
        base.policy = CompressionPolicyKind::H2O;
        const auto runs = plan_runs(base, {}, 5);
        QCOMPARE(runs.size(), size_t(2));
        QCOMPARE(runs[1].config.policy, CompressionPolicyKind::H2O);
        QCOMPARE(plan_runs(CompressionConfig::full_cache(), {}, 5).size(), size_t(1));
    }

    void bad_sweep_values_are_rejected()
    {
        QVERIFY_THROWS_EXCEPTION(Error, plan_runs(CompressionConfig{}, {{0.0}, {}}, 5));
        QVERIFY_THROWS_EXCEPTION(Error, plan_runs(CompressionConfig{}, {{1.5}, {}}, 5));
        QVERIFY_THROWS_EXCEPTION(Error, plan_runs(CompressionConfig{}, {{}, {0}}, 5));
    }

    void paired_delta_is_the_mean_difference_with_its_standard_error()
    {
        const PerplexityResult a = result_with({1.0, 2.0, 3.0}, 0.5);
        const PerplexityResult b = result_with({0.5, 1.0, 1.5}, 1.0);
        const PairedDelta d = paired_delta(a, b);
        QCOMPARE(d.mean, 1.0);  // differences 0.5, 1.0, 1.5
        QVERIFY(std::abs(d.standard_error - std::sqrt(0.25 / 3.0)) < 1e-12);
        QVERIFY_THROWS_EXCEPTION(Error, paired_delta(a, result_with({1.0}, 1.0)));
    }

    void tables_and_json_carry_every_run()
    {
        EvalReport report;
        report.model = "m.gguf";
        report.text = "t.txt";
        CompressionConfig pyr;
        pyr.pyramid.prefill_decay_ratio = 0.5;
        CompressionConfig local = pyr, h2o = pyr;
        local.policy = CompressionPolicyKind::Local;
        h2o.policy = CompressionPolicyKind::H2O;
        report.runs = {
            {{"full", kSeriesFull, "no compression", CompressionConfig::full_cache()}, result_with({1.0, 1.2}, 1.0)},
            {{"pyramid d=0.5", kSeriesPyramid, "decay=0.5", pyr}, result_with({1.1, 1.4}, 0.6)},
            {{"local @ d=0.5", kSeriesLocalMatched, "", local}, result_with({1.3, 1.5}, 0.6)},
            {{"h2o @ d=0.5", kSeriesH2OMatched, "", h2o}, result_with({1.0, 1.2}, 0.61)},
        };
        const std::string table = markdown_table(report);
        QCOMPARE(std::count(table.begin(), table.end(), '\n'), 2 + 4);
        QVERIFY(table.find("| pyramid d=0.5 | pyramid | decay=0.5 | 3.4903 | +0.1500 ± 0.0500 |") !=
                std::string::npos);
        const std::string comparison = markdown_comparison(report);
        QVERIFY2(comparison.find("| 0.5 | 0.600 / 0.600 / 0.610 |") != std::string::npos, comparison.c_str());
        QVERIFY2(comparison.find("| -0.1500 ± 0.0500 | +0.1500 ± 0.0500 |") != std::string::npos, comparison.c_str());

        const nlohmann::json json = report_to_json(report);
        QCOMPARE(json.at("runs").size(), size_t(4));
        for (const char* key : {"label", "series", "policy", "config", "perplexity", "mean_nll", "window_mean_nll",
                                "mean_kv_entries_per_layer", "prefill_kv_lengths", "kv_fraction", "delta_nll_vs_full"})
            QVERIFY2(json.at("runs")[1].contains(key), key);
        QCOMPARE(json.at("runs")[2].at("config").at("policy").get<std::string>(), std::string("local"));
    }

    void json_reads_back_to_the_same_report()
    {
        const EvalReport report = two_run_report(1.1);
        const nlohmann::json json = report_to_json(report);
        const EvalReport back = report_from_json(json);
        QCOMPARE(back.runs.size(), size_t(2));
        QCOMPARE(back.runs[1].run.config.pyramid.prefill_decay_ratio, 0.5);
        QCOMPARE(back.runs[1].result.window_mean_nll, report.runs[1].result.window_mean_nll);
        QCOMPARE(back.windows.prefill, 64);
        QCOMPARE(report_to_json(back).dump(), json.dump());

        nlohmann::json no_runs = json;
        no_runs.erase("runs");
        nlohmann::json missing_field = json;
        missing_field["runs"][1].erase("window_mean_nll");
        nlohmann::json wrong_type = json;
        wrong_type["runs"][0]["perplexity"] = "high";
        nlohmann::json short_windows = json;
        short_windows["runs"][1]["window_mean_nll"] = {1.1};
        nlohmann::json other_tool = json;
        other_tool["tool"] = "pyramid-bench";
        const std::vector<std::pair<nlohmann::json, std::string>> bad = {
            {no_runs, "no \"runs\""},
            {missing_field, "run 2 has no \"window_mean_nll\""},
            {wrong_type, "run 1: \"perplexity\" has the wrong type"},
            {short_windows, "run 2: 2 windows but 1 window NLLs"},
            {other_tool, "not the JSON of pyramid-eval ppl"},
        };
        for (const auto& [doc, message] : bad) {
            try {
                report_from_json(doc);
                QFAIL(message.c_str());
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(message) != std::string::npos, e.what());
            }
        }
    }

    void merging_keeps_each_label_once_and_refuses_parts_that_differ()
    {
        EvalReport a = two_run_report(1.1);
        EvalReport b = two_run_report(1.1);
        b.model = "/elsewhere/m.gguf";  // the same file at another place
        CompressionConfig snap;
        snap.policy = CompressionPolicyKind::SnapKV;
        snap.budget_fraction = 0.25;
        b.runs.push_back({{"snapkv f=0.25", "snapkv", "keeps 0.25 of full", snap}, result_with({1.5, 1.6}, 0.25)});
        const EvalReport merged = merge_reports({a, b});
        QCOMPARE(merged.runs.size(), size_t(3));
        QCOMPARE(QString::fromStdString(merged.runs[2].run.label), QString("snapkv f=0.25"));
        QCOMPARE(merged.model, a.model);

        const auto refused = [](const std::vector<EvalReport>& parts, const std::string& message) {
            try {
                merge_reports(parts);
            } catch (const Error& e) {
                return std::string(e.what()).find(message) != std::string::npos;
            }
            return false;
        };
        QVERIFY(refused({a, two_run_report(1.3)}, "run \"pyramid d=0.5\" of report 2 scored other NLLs"));
        EvalReport other_windows = two_run_report(1.1);
        other_windows.windows.prefill = 128;
        QVERIFY(refused({a, other_windows}, "report 2 scored other windows"));
        EvalReport other_text = two_run_report(1.1);
        other_text.text = "other.txt";
        QVERIFY(refused({a, other_text}, "report 2 scored /models/m.gguf on other.txt"));
        EvalReport other_config = two_run_report(1.1);
        other_config.runs[1].run.config.pyramid.recent_ratio = 0.3;
        QVERIFY(refused({a, other_config}, "run \"pyramid d=0.5\" of report 2 has another configuration"));
        QVERIFY(refused({}, "no report to merge"));
    }

    void ticks_are_round_and_cover_the_range()
    {
        const AxisTicks t = nice_ticks(0.83, 1.0);
        QCOMPARE(t.step, 0.05);
        QVERIFY(t.min <= 0.83 && t.max >= 1.0);
        QCOMPARE(t.values.front(), t.min);
        QCOMPARE(tick_label(0.85, t.step), QString("0.85"));
        const AxisTicks big = nice_ticks(3.2, 147.0);
        QCOMPARE(big.step, 50.0);
        QCOMPARE(tick_label(100.0, big.step), QString("100"));
        const AxisTicks flat = nice_ticks(2.0, 2.0);  // one value still gets a range
        QVERIFY(flat.min < 2.0 && flat.max > 2.0);
    }
};

QTEST_APPLESS_MAIN(EvalReportTest)
#include "test_eval_report.moc"
