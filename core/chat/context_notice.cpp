#include "chat/context_notice.h"

namespace pyramid {

std::string describe(const ContextNotice& notice)
{
    const std::string n = std::to_string(notice.count);
    const bool one = notice.count == 1;
    switch (notice.kind) {
    case ContextNotice::Kind::None:
        return {};
    case ContextNotice::Kind::TurnsDropped:
        return "the conversation outgrew the model's context: the oldest " +
               (one ? "exchange was" : n + " exchanges were") + " left out of the prompt";
    case ContextNotice::Kind::PositionsRenumbered:
        return "the context was full: the oldest " + (one ? "position was" : n + " positions were") +
               " dropped and the rest renumbered";
    }
    return {};
}

} // namespace pyramid
