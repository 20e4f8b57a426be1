// pyramid-eval: quality evaluation of the KV-cache policies. `ppl` runs the perplexity
// protocol (one policy or a sweep) and writes tables, JSON and plots; `replay` reproduces a
// golden-format case; `multiturn` compares extending and rebuilding a compressed cache;
// `recall` scores answers about earlier context (facts across turns, passkeys);
// `ppl-merge` joins ppl reports of the same windows made apart; `bench-plots` draws the plots
// of a pyramid-bench run.
// Results go to stdout, progress and errors to stderr.
#include <CLI/CLI.hpp>

#include "bench_plots_command.h"
#include "command_line.h"
#include "multi_turn_command.h"
#include "ppl_command.h"
#include "ppl_merge_command.h"
#include "recall_command.h"
#include "replay_command.h"

int main(int argc, char** argv)
{
    CLI::App app{"Quality evaluation of KV-cache compression: perplexity sweeps and golden replays.",
                 "pyramid-eval"};
    app.require_subcommand(1);
    pyramid::PplCommand ppl(app);
    pyramid::PplMergeCommand ppl_merge(app);
    pyramid::ReplayCommand replay(app);
    pyramid::MultiTurnCommand multi_turn(app);
    pyramid::RecallCommand recall(app);
    pyramid::BenchPlotsCommand bench_plots(app);
    if (const auto status = pyramid::parse_command_line(app, argc, argv, "pyramid-eval"))
        return *status;
    if (ppl.chosen())
        return ppl.run();
    if (ppl_merge.chosen())
        return ppl_merge.run();
    if (bench_plots.chosen())
        return bench_plots.run();
    if (recall.chosen())
        return recall.run();
    return multi_turn.chosen() ? multi_turn.run() : replay.run();
}
