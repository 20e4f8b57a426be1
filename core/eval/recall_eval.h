#pragma once
// Recall of earlier context: does a compressed cache still answer a question about something
// the conversation said long before (a fact in the first turn, a passkey in filler text)?
// A case is a conversation whose last user message asks the question, the start of the right
// reply (`lead_in`, e.g. "The pass key is") and the answer that must follow (" 48213").
//
// Scoring, with one prefill and no sampling: after the conversation's prompt the lead-in is
// fed by teacher forcing (not scored), then the answer's tokens; the score is their summed
// log-probability, and the answer counts as recalled when the model's greedy choice at every
// answer position is the answer's token (what a greedy reply after the lead-in would say).
//
// Two ways to reach the question, as in the app (docs/multi-turn.md):
//   extend  — turn by turn: each user turn is prefilled onto the compressed cache, each
//             earlier reply fed token by token through the decode path, as if generated;
//   rebuild — the whole conversation prefilled at once from an empty cache.
#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "chat/chat_format.h"
#include "kv/compression_config.h"

namespace pyramid {

struct RecallCase {
    std::string id;
    Conversation conversation;  // alternating, starting and ending with the user
    std::string lead_in;        // the reply's start, fed before the answer
    std::string answer;         // what must follow the lead-in
};

// The token pieces of a case in the order extend mode feeds them: prompts[t] (head and
// exchange for turn 0; after_reply and exchange later), replies[t] after prompts[t] (one
// fewer reply than prompts: the last prompt asks the question), then lead_in and answer.
struct RecallTokens {
    std::vector<std::vector<int32_t>> prompts;
    std::vector<std::vector<int32_t>> replies;
    std::vector<int32_t> lead_in;
    std::vector<int32_t> answer;
    int total() const;  // every token fed, answer included
};

// Throws pyramid::Error for a conversation that does not alternate or end with the user, an
// empty answer, or a lead-in whose tokens are not a prefix of lead-in + answer's.
RecallTokens recall_tokens(const ChatTemplate& chat, const Tokenizer& tok, const RecallCase& c);

enum class RecallMode { Extend, Rebuild };
std::string to_string(RecallMode mode);

struct RecallScore {
    double answer_logprob = 0;  // summed over the answer's tokens, nats
    bool recalled = false;      // greedy argmax equals the answer at every position
    size_t kv_bytes = 0;        // the cache when the question was read
    size_t full_kv_bytes = 0;   // a full cache at the same point
};

RecallScore score_recall(Backend& backend, const CompressionConfig& config, const RecallTokens& tokens,
                         RecallMode mode);

} // namespace pyramid
