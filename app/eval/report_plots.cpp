#include "report_plots.h"

#include <algorithm>
#include <map>

#include "layer_chart.h"
#include "line_chart.h"
#include "plot_files.h"
#include "util/error.h"

namespace pyramid {
namespace {

const QSize kPlotSize(960, 600);

QColor series_color(const std::string& series)
{
    static const std::map<std::string, QColor> colors = {
        {kSeriesFull, QColor(30, 30, 30)},           {kSeriesPyramid, QColor(31, 119, 180)},
        {kSeriesLocalMatched, QColor(230, 120, 20)}, {kSeriesH2OMatched, QColor(44, 160, 44)},
        {kSeriesLocalFixed, QColor(230, 120, 20)},   {kSeriesH2OFixed, QColor(44, 160, 44)},
        {"local", QColor(230, 120, 20)},             {"h2o", QColor(44, 160, 44)},
        {"snapkv", QColor(214, 39, 40)},             {"pyramidkv", QColor(140, 86, 75)},
    };
    const auto it = colors.find(series);
    return it != colors.end() ? it->second : QColor(148, 103, 189);
}

QString protocol_text(const EvalReport& r)
{
    return QStringLiteral("%1 on %2 · P=%3, C=%4, %5 windows")
        .arg(QString::fromStdString(std::filesystem::path(r.model).filename().string()),
             QString::fromStdString(std::filesystem::path(r.text).filename().string()))
        .arg(r.windows.prefill)
        .arg(r.windows.continuation)
        .arg(r.windows.count);
}

bool equal_bytes_series(const std::string& series)
{
    return series == kSeriesFull || series == kSeriesPyramid || series == kSeriesLocalMatched ||
           series == kSeriesH2OMatched;
}

// All runs, or (`equal_bytes_only`) the decay sweep's runs and full, whose KV fractions sit
// close together and need their own scale.
LineChart perplexity_chart(const EvalReport& report, bool equal_bytes_only)
{
    LineChart chart;
    chart.title = equal_bytes_only ? QStringLiteral("Perplexity at equal KV bytes (PyramidInfer decay sweep)")
                                   : QStringLiteral("Perplexity against KV-cache size");
    chart.subtitle = protocol_text(report);
    chart.x_label = QStringLiteral("KV cache bytes / full cache bytes (mean over the scored steps)");
    chart.y_label = QStringLiteral("perplexity (lower is better)");
    for (const RunResult& r : report.runs) {
        if (equal_bytes_only && !equal_bytes_series(r.run.series))
            continue;
        auto it = std::find_if(chart.series.begin(), chart.series.end(),
                               [&](const ChartSeries& s) { return s.name.toStdString() == r.run.series; });
        if (it == chart.series.end()) {
            ChartSeries s;
            s.name = QString::fromStdString(r.run.series);
            s.color = series_color(r.run.series);
            s.reference = r.run.series == kSeriesFull;
            if (r.run.series == kSeriesLocalFixed || r.run.series == kSeriesH2OFixed)
                s.style = Qt::DashLine;
            chart.series.push_back(s);
            it = chart.series.end() - 1;
        }
        it->points.emplace_back(r.result.kv_fraction, r.result.perplexity);
    }
    return chart;
}

const RunResult& lengths_run_of(const EvalReport& report, const std::string& label)
{
    const RunResult* best = nullptr;
    for (const RunResult& r : report.runs) {
        if (!label.empty()) {
            if (r.run.label == label)
                return r;
            continue;
        }
        const bool pyramid = r.run.series == kSeriesPyramid;
        const bool best_pyramid = best && best->run.series == kSeriesPyramid;
        if (!best || (pyramid && !best_pyramid) ||
            (pyramid == best_pyramid && r.result.kv_fraction < best->result.kv_fraction))
            best = &r;
    }
    if (!best)
        throw Error(label.empty() ? "the report has no runs to plot" : "no run is labelled \"" + label + "\"");
    return *best;
}

LayerPyramid lengths_chart(const EvalReport& report, const RunResult& run)
{
    LayerPyramid chart;
    chart.title = QStringLiteral("KV entries per layer: %1").arg(QString::fromStdString(run.run.label));
    chart.subtitle = protocol_text(report) + QStringLiteral(" · mean over the scored steps; outline: full cache");
    chart.color = series_color(run.run.series);
    chart.lengths = run.result.mean_layer_entries;
    chart.prefill_lengths = run.result.prefill_lengths;
    if (const RunResult* full = full_reference(report); full && !full->result.mean_layer_entries.empty())
        chart.full_length = full->result.mean_layer_entries.front();
    return chart;
}

} // namespace

std::vector<std::filesystem::path> write_report_plots(const EvalReport& report, const std::filesystem::path& dir,
                                                      const std::string& lengths_run)
{
    std::vector<std::filesystem::path> files;
    const auto render = [&](const std::string& name, const ChartPainter& paint) {
        for (auto& f : render_chart_files(dir / name, kPlotSize, paint))
            files.push_back(std::move(f));
    };
    const LineChart ppl = perplexity_chart(report, false);
    render("ppl_vs_kv", [&](QPainter& p, const QRectF& area) { paint_line_chart(p, area, ppl); });
    const bool mixed = std::any_of(report.runs.begin(), report.runs.end(),
                                   [](const RunResult& r) { return !equal_bytes_series(r.run.series); });
    const bool swept = std::any_of(report.runs.begin(), report.runs.end(),
                                   [](const RunResult& r) { return r.run.series == kSeriesLocalMatched; });
    if (mixed && swept) {
        const LineChart equal = perplexity_chart(report, true);
        render("ppl_vs_kv_equal_bytes", [&](QPainter& p, const QRectF& area) { paint_line_chart(p, area, equal); });
    }
    const LayerPyramid lengths = lengths_chart(report, lengths_run_of(report, lengths_run));
    render("kv_lengths", [&](QPainter& p, const QRectF& area) { paint_layer_pyramid(p, area, lengths); });
    return files;
}

} // namespace pyramid
