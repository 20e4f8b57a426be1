#include "bench_plots_command.h"

#include <algorithm>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "layer_chart.h"
#include "line_chart.h"
#include "plot_files.h"
#include "util/error.h"

namespace pyramid {
namespace {

const QSize kPlotSize(960, 600);

QColor policy_color(const std::string& policy)
{
    static const std::map<std::string, QColor> colors = {{"full", QColor(30, 30, 30)},
                                                         {"pyramid", QColor(31, 119, 180)},
                                                         {"local", QColor(230, 120, 20)},
                                                         {"h2o", QColor(44, 160, 44)}};
    const auto it = colors.find(policy);
    return it != colors.end() ? it->second : QColor(148, 103, 189);
}

nlohmann::json load(const std::filesystem::path& path)
{
    std::ifstream in(path);
    if (!in)
        throw Error("cannot read " + path.string());
    nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || doc.value("tool", "") != "pyramid-bench" || !doc.contains("runs"))
        throw Error(path.string() + " is not the JSON of pyramid-bench");
    return doc;
}

QString subtitle(const nlohmann::json& doc)
{
    const auto& m = doc.at("model");
    const auto& w = doc.at("workload");
    return QString::fromStdString(fmt::format("{} ({} weights) on {} · {}+{} tokens per sequence · {}",
                                              m.at("name").get<std::string>(), m.at("weight_type").get<std::string>(),
                                              doc.at("device").at("name").get<std::string>(),
                                              w.at("prompt_len").get<int>(), w.at("gen_len").get<int>(),
                                              doc.value("date", "")));
}

} // namespace

std::vector<std::filesystem::path> write_bench_plots(const std::filesystem::path& results,
                                                     const std::filesystem::path& dir)
{
    const nlohmann::json doc = load(results);

    LineChart throughput;
    throughput.title = QStringLiteral("Throughput against batch size");
    throughput.subtitle = subtitle(doc);
    throughput.x_label = QStringLiteral("sequences in the batch");
    throughput.y_label = QStringLiteral("generated tokens / s (end to end)");
    std::map<std::string, ChartSeries> lines;
    std::map<std::string, nlohmann::json> largest;  // per label, its run of the largest batch
    for (const auto& run : doc.at("runs")) {
        if (!run.at("ok").get<bool>())
            continue;
        const std::string label = run.at("label");
        ChartSeries& s = lines[label];
        s.name = QString::fromStdString(label);
        s.color = policy_color(run.at("policy"));
        s.points.emplace_back(run.at("batch").get<double>(), run.at("throughput_tokens_per_s").get<double>());
        if (!largest.count(label) || run.at("batch").get<int>() > largest[label].at("batch").get<int>())
            largest[label] = run;
    }
    if (lines.empty())
        throw Error(results.string() + " has no successful run to plot");
    for (auto& [label, s] : lines) {
        std::sort(s.points.begin(), s.points.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
        throughput.series.push_back(s);
    }
    for (const auto& m : doc.value("max_batch", nlohmann::json::array())) {
        ChartSeries marker;
        marker.name = QString::fromStdString(m.at("label").get<std::string>() + ": largest batch that fits");
        marker.color = policy_color(m.at("policy"));
        marker.style = Qt::NoPen;
        marker.points.emplace_back(m.at("batch").get<double>(), m.at("throughput_tokens_per_s").get<double>());
        throughput.series.push_back(marker);
    }
    std::vector<std::filesystem::path> files = render_chart_files(
        dir / "bench_throughput", kPlotSize, [&](QPainter& p, const QRectF& area) { paint_line_chart(p, area, throughput); });

    // One pyramid per policy, side by side.
    const int full_length = doc.at("workload").at("prompt_len").get<int>() + doc.at("workload").at("gen_len").get<int>();
    std::vector<LayerPyramid> pyramids;
    for (const auto& [label, run] : largest) {
        LayerPyramid chart;
        chart.title = QString::fromStdString(fmt::format("{} · batch {}", label, run.at("batch").get<int>()));
        chart.subtitle = QStringLiteral("mean KV entries per sequence at the peak");
        chart.color = policy_color(run.at("policy"));
        chart.lengths = run.at("layer_lengths").get<std::vector<double>>();
        chart.full_length = full_length;
        pyramids.push_back(std::move(chart));
    }
    const QSize size(std::max(480, 420 * static_cast<int>(pyramids.size())), 600);
    const auto more = render_chart_files(dir / "bench_kv_layers", size, [&](QPainter& p, const QRectF& area) {
        const double width = area.width() / static_cast<double>(pyramids.size());
        for (size_t i = 0; i < pyramids.size(); ++i)
            paint_layer_pyramid(p, QRectF(area.left() + width * static_cast<double>(i), area.top(), width, area.height()),
                                pyramids[i]);
    });
    files.insert(files.end(), more.begin(), more.end());
    return files;
}

BenchPlotsCommand::BenchPlotsCommand(CLI::App& parent)
    : app_(parent.add_subcommand("bench-plots", "plots of a pyramid-bench --json file"))
{
    app_->add_option("results", results_, "pyramid-bench JSON")->required()->check(CLI::ExistingFile);
    app_->add_option("--out", out_, "folder for the .svg and .png files")->capture_default_str();
}

int BenchPlotsCommand::run()
{
    try {
        const OffscreenGui gui;
        for (const auto& file : write_bench_plots(results_, out_))
            fmt::print("{}\n", file.string());
        return 0;
    } catch (const Error& e) {
        fmt::print(stderr, "pyramid-eval bench-plots: {}\n", e.what());
        return 2;
    } catch (const nlohmann::json::exception& e) {
        fmt::print(stderr, "pyramid-eval bench-plots: {}: {}\n", results_, e.what());
        return 2;
    }
}

} // namespace pyramid
