#pragma once
// The full cache's scores from an earlier `pyramid-eval recall --json` file, or one that
// bench/merge_recall.py joined, for `recall --reference`: a run of new policies then need not
// score the full cache again. It is deterministic on one machine (merge_recall.py checks that
// every file scored it alike), and in a 200-conversation run of one policy it takes a third
// of the time.
//
// The file must have scored a model of the same file name, in the given mode, every case asked
// for (matched by id) at the same number of tokens; anything else is a pyramid::Error naming
// what differs, so that a reference of other cases or another model is never used. The KV type
// is not in the file: `recall` compares each case's full-cache bytes with its own runs' as
// they are scored.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/recall_eval.h"

namespace pyramid {

struct RecallCaseKey {
    std::string id;
    int tokens = 0;  // the whole conversation, answer included (RecallTokens::total)
};

// Scores in the order of `cases`. `source` names the file in messages.
std::vector<RecallScore> reference_full_scores(const nlohmann::json& report, const std::string& source,
                                               const std::string& model_path, const std::string& mode,
                                               const std::vector<RecallCaseKey>& cases);

} // namespace pyramid
