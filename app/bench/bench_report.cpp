#include "bench_report.h"

#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "output_file.h"

namespace pyramid::bench {
namespace {

std::string mib(size_t bytes) { return fmt::format("{:.1f}", static_cast<double>(bytes) / (1 << 20)); }

void add_rows(std::string& out, const std::vector<RunResult>& runs, const Workload& w, bool max_batch)
{
    for (const RunResult& r : runs) {
        const std::string batch =
            max_batch ? fmt::format("{} (max; planned {})", r.batch, r.planned_batch) : std::to_string(r.batch);
        if (!r.ok) {
            out += fmt::format("| {} | {} | {}+{} | failed: {} ||||||||||\n", r.label, batch, w.prompt_len, w.gen_len,
                               r.error);
            continue;
        }
        // A batch that did not fit the KV budget ran partly one after the other.
        const std::string fit = r.max_running == r.batch && r.preemptions == 0
                                    ? "yes"
                                    : fmt::format("no: {} at once, {} preempted", r.max_running, r.preemptions);
        out += fmt::format("| {} | {} | {}+{} | {:.3f} | {:.1f} | {:.1f} | {:.2f} | {:.2f} | {:.2f} | {} | {} | {} | {:.1f} "
                           "| {} |\n",
                           r.label, batch, w.prompt_len, w.gen_len, r.prefill_s, r.decode_tokens_per_s,
                           r.throughput_tokens_per_s, r.latency_ms_per_token, r.queue_ms_per_step, r.selection_ms_per_step,
                           mib(r.kv_bytes_peak), mib(r.kv_bytes_full), mib(r.peak_device_memory),
                           r.decode_bandwidth_gbs, fit);
    }
}

// How much of what compaction dropped another sequence could use at once: the whole blocks it
// emptied (the rest stays in partly filled ones), per policy over all its runs.
void add_compaction(std::string& out, const BenchReport& report)
{
    struct Compacted {
        size_t dropped = 0, freed = 0;
    };
    std::map<std::string, Compacted> by_label;
    for (const auto* runs : {&report.runs, &report.max_batch})
        for (const RunResult& r : *runs)
            if (r.compaction_bytes_dropped > 0) {
                Compacted& c = by_label[r.label];
                c.dropped += r.compaction_bytes_dropped;
                c.freed += r.compaction_bytes_freed;
            }
    if (by_label.empty())
        return;
    out += "\nCompaction: KV memory given back at once as whole blocks, per byte it dropped (above 100%: it also\n"
           "freed the empty ends of blocks reserved for tokens not yet generated)\n";
    for (const auto& [label, c] : by_label)
        out += fmt::format("- {}: {:.1f}% of {} MiB\n", label,
                           100.0 * static_cast<double>(c.freed) / static_cast<double>(c.dropped), mib(c.dropped));
}

nlohmann::json run_json(const RunResult& r)
{
    return {{"policy", r.policy},
            {"label", r.label},
            {"batch", r.batch},
            {"step_graphs", r.step_graphs},
            {"ok", r.ok},
            {"error", r.error},
            {"prefill_s", r.prefill_s},
            {"decode_s", r.decode_s},
            {"total_s", r.total_s},
            {"decode_tokens_per_s", r.decode_tokens_per_s},
            {"throughput_tokens_per_s", r.throughput_tokens_per_s},
            {"latency_ms_per_token", r.latency_ms_per_token},
            {"queue_ms_per_step", r.queue_ms_per_step},
            {"selection_ms_per_step", r.selection_ms_per_step},
            {"kv_bytes_mean", r.kv_bytes_mean},
            {"kv_bytes_peak", r.kv_bytes_peak},
            {"kv_bytes_full", r.kv_bytes_full},
            {"peak_device_memory", r.peak_device_memory},
            {"layer_lengths", r.layer_lengths},
            {"decode_bandwidth_gbs", r.decode_bandwidth_gbs},
            {"max_running", r.max_running},
            {"preemptions", r.preemptions},
            {"compaction_bytes_dropped", r.compaction_bytes_dropped},
            {"compaction_bytes_freed", r.compaction_bytes_freed}};
}

} // namespace

std::string format_table(const BenchReport& report, const BenchModel& model)
{
    std::string out = fmt::format("{} ({}, {} weights, {} MiB read per step) on {} ({}), copy bandwidth {:.1f} GB/s\n\n",
                                  model.name(), model.source(), model.weight_type(), mib(model.weight_bytes()),
                                  report.device_name, report.backend, report.copy_bandwidth_gbs);
    if (report.workload.kv_byte_limit > 0)
        out += fmt::format("KV budget {} MiB", mib(report.workload.kv_byte_limit));
    if (report.step_memory > 0)
        out += fmt::format(", with {} MiB kept for steps of up to {} rows and {} sequences",
                           mib(report.step_memory), report.step_extent.rows, report.step_extent.sequences);
    if (report.workload.kv_byte_limit > 0)
        out += "\n\n";
    out += "| policy | batch | length | prefill s | decode tok/s | throughput tok/s | ms/token | queue ms | select ms | "
           "KV peak MiB | KV full MiB | peak memory MiB | decode GB/s | fits |\n";
    out += "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    add_rows(out, report.runs, report.workload, false);
    add_rows(out, report.max_batch, report.workload, true);
    add_compaction(out, report);
    return out;
}

void write_json(const std::filesystem::path& path, const BenchReport& report, const BenchModel& model)
{
    const ModelConfig& c = model.config();
    nlohmann::json doc = {
        {"tool", "pyramid-bench"},
        {"date", report.date},
        {"command", report.command},
        {"device",
         {{"backend", report.backend},
          {"backend_note", report.backend_note},
          {"name", report.device_name},
          {"kv_entry_bytes", model.backend().kv_entry_bytes()},  // one layer's key and value of a token
          {"memory_total", report.memory_total},
          {"copy_bandwidth_gbs", report.copy_bandwidth_gbs}}},
        {"model",
         {{"name", model.name()},
          {"source", model.source()},
          {"weight_type", model.weight_type()},
          {"weight_bytes", model.weight_bytes()},
          {"stored_bytes", model.stored_bytes()},
          {"parameters", model.parameters()},
          {"n_layers", c.n_layers},
          {"dim", c.dim},
          {"n_heads", c.n_heads},
          {"n_kv_heads", c.n_kv_heads},
          {"ffn_dim", c.ffn_dim},
          {"n_vocab", c.n_vocab},
          {"context_length", c.context_length}}},
        {"workload",
         {{"prompt_len", report.workload.prompt_len},
          {"gen_len", report.workload.gen_len},
          {"warmup", report.warmup},
          {"repetitions", report.repetitions},
          {"seed", report.workload.seed},
          {"kv_byte_limit", report.workload.kv_byte_limit},
          {"step_memory_bytes", report.step_memory},
          {"step_rows", report.step_extent.rows},
          {"step_sequences", report.step_extent.sequences}}},
        {"runs", nlohmann::json::array()},
        {"max_batch", nlohmann::json::array()}};
    for (const RunResult& r : report.runs)
        doc["runs"].push_back(run_json(r));
    for (const RunResult& r : report.max_batch) {
        // The confirmed run goes with the runs too, so its memory columns can be shown.
        doc["runs"].push_back(run_json(r));
        doc["max_batch"].push_back({{"policy", r.policy},
                                    {"label", r.label},
                                    {"batch", r.batch},
                                    {"planned_batch", r.planned_batch},
                                    {"throughput_tokens_per_s", r.throughput_tokens_per_s}});
    }
    write_text_file(path, doc.dump(2) + '\n');
}

} // namespace pyramid::bench
