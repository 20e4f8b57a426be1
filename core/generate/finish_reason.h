#pragma once

namespace pyramid {

// Why a generation stopped.
enum class FinishReason { EndOfSequence, MaxTokens, Cancelled, ContextFull, Error };

} // namespace pyramid
