#pragma once
// The desktop app's answer to SIGTERM, SIGINT and SIGHUP (a logout, `kill`, Ctrl+C in the
// terminal it was started from): the event loop ends, a dialog's too, and what comes after
// exec() runs as when the window is closed: DesktopApp's destruction stores a running reply as
// stopped, with the text it had shown, and the drafts typed (util/stop_signals.h: a second
// signal ends the process at once). Hold the Handling from `app`'s making until after the
// DesktopApp is destroyed, and let it go before `app` goes.
#include <QCoreApplication>

#include "util/stop_signals.h"

[[nodiscard]] pyramid::StopSignals::Handling quitOnStopSignals(pyramid::StopSignals& stopSignals,
                                                               QCoreApplication& app);
