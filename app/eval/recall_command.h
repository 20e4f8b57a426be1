#pragma once
// `pyramid-eval recall`: how often each KV-cache policy still answers questions about earlier
// context (core/eval/recall_eval.h), on cases from a JSON Lines file that
// bench/make_recall_cases.py writes (conversations with facts in the first turn, passkeys in
// filler). One object per line:
//   {"id": "...", "system": "...", "messages": [{"role": "user"|"assistant", "content": "..."}],
//    "lead_in": "The pass key is", "answer": " 48213", ...}
// Other keys (kind, depth, length) are copied to the JSON results for grouping.
// Runs: the configured policies (--policy a,b) or a sweep (sweep.h), always with the full cache
// as the reference, in extend and/or rebuild mode; --reference FILE takes the full cache's
// scores from an earlier --json instead of scoring them again (recall_reference.h). The table
// goes to stdout, progress to stderr, per-case results to --json (a full run read from a
// reference names it under "reference").
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "engine_options.h"

namespace pyramid {

class RecallCommand {
public:
    explicit RecallCommand(CLI::App& parent);
    bool chosen() const { return app_->parsed(); }
    // Exit codes as `ppl`: 0 done, 2 bad options or input, 3 model failed to load, 4 a run failed.
    int run();

private:
    CLI::App* app_;
    std::string model_path_, cases_path_, json_path_, reference_path_;
    std::vector<std::string> modes_{"extend", "rebuild"};
    int limit_ = 0;  // cases used (0: all)
    std::vector<double> sweep_decay_, sweep_fraction_;
    CompressionOptions compression_{"pyramid", true};  // --policy a,b: each beside full
    DeviceOption device_{KvPrecision::F32};
};

} // namespace pyramid
