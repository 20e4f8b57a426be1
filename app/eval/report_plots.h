#pragma once
// The evaluation's plots, each as .svg and .png:
//   ppl_vs_kv              perplexity against KV bytes as a fraction of full, one curve per series
//   ppl_vs_kv_equal_bytes  the same for the decay sweep's runs and full only, on their own scale
//                          (written when the report also has other runs, e.g. a budget sweep)
//   kv_lengths             the per-layer KV lengths of one run
// Needs a QGuiApplication (see OffscreenGui).
#include <filesystem>
#include <string>
#include <vector>

#include "eval_report.h"

namespace pyramid {

// `lengths_run`: label of the run whose layer lengths are drawn; empty picks the PyramidInfer
// run with the smallest KV fraction, or the most compressed run when there is none. Creates
// `dir` if needed and returns the files written. Throws pyramid::Error for an unknown label
// or a file that cannot be written.
std::vector<std::filesystem::path> write_report_plots(const EvalReport& report, const std::filesystem::path& dir,
                                                      const std::string& lengths_run = {});

} // namespace pyramid
