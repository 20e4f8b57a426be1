#pragma once
// What a call throws as pyramid::Error, for tests that check a refusal's message.
#include <QString>

#include "util/error.h"

namespace pyramid::test {

// The message of the pyramid::Error that f() throws; empty when it throws none.
template <typename F>
QString error_of(F&& f)
{
    try {
        f();
    } catch (const Error& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace pyramid::test
