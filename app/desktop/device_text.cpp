#include "device_text.h"

#include <QCoreApplication>
#include <QRegularExpression>

QString deviceText(const QString& engineDevice)
{
    // The texts keep the live panel's translation context, where they were first translated.
    static const QRegularExpression cpu(QStringLiteral("^cpu: (\\d+) threads, (\\w+) KV cache$"));
    if (const QRegularExpressionMatch m = cpu.match(engineDevice); m.hasMatch()) {
        // The count on a line of its own: lupdate 6.4 loops forever on a call as translate()'s
        // last argument.
        const int threads = m.captured(1).toInt();
        return QCoreApplication::translate("CacheStatsModel", "CPU, %n thread(s), %1 KV cache", nullptr, threads)
            .arg(m.captured(2));
    }
    if (runsOnGpu(engineDevice))
        return QCoreApplication::translate("CacheStatsModel", "GPU (CUDA): %1").arg(engineDevice.mid(6));
    return engineDevice;
}

bool runsOnGpu(const QString& engineDevice) { return engineDevice.startsWith(QLatin1String("cuda: ")); }
