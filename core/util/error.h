#pragma once
// The one exception type core throws for bad input: a model file that is truncated or
// malformed, an invalid setting, an over-long prompt. Messages name the thing at fault
// (file, tensor, field, expected vs found) so they can be shown to a user as they are.
#include <stdexcept>
#include <string>

namespace pyramid {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Work stopped because the caller asked it to; not a failure to report as an error.
class Cancelled : public Error {
public:
    Cancelled() : Error("cancelled") {}
};

} // namespace pyramid
