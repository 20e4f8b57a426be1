#pragma once
// What the engine did to fit a conversation into the model's context, for the user to see
// under the reply. It is data, not a sentence: the app words it in the user's language (with
// plural forms); describe() words it in English for the log and the command line.
#include <string>

namespace pyramid {

struct ContextNotice {
    enum class Kind {
        None,
        TurnsDropped,         // the oldest exchanges were left out of the prompt (drop-oldest)
        PositionsRenumbered,  // the oldest positions left the cache, the rest were renumbered (re-encode)
    };
    Kind kind = Kind::None;
    int count = 0;  // exchanges left out, or positions dropped

    explicit operator bool() const { return kind != Kind::None; }
    bool operator==(const ContextNotice&) const = default;
};

// "the conversation outgrew the model's context: the oldest 2 exchanges were left out of the
// prompt"; empty for Kind::None.
std::string describe(const ContextNotice& notice);

} // namespace pyramid
