#include "quit_on_signals.h"

#include <QMetaObject>

pyramid::StopSignals::Handling quitOnStopSignals(pyramid::StopSignals& stopSignals, QCoreApplication& app)
{
    // The signal comes on StopSignals' own thread: quit() is posted to the app's.
    return stopSignals.handle(
        [&app](int) { QMetaObject::invokeMethod(&app, &QCoreApplication::quit, Qt::QueuedConnection); });
}
