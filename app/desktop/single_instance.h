#pragma once
// One PyramidChat per data folder. Two would share one conversation database: each would
// purge the conversations the other still offers to undo, and both would write turns into
// the same conversation. A second start asks the first to show its window (and open the
// model it was given) and ends.
#include <QLocalServer>
#include <QLockFile>
#include <QObject>
#include <QString>

class SingleInstance : public QObject {
    Q_OBJECT

public:
    explicit SingleInstance(const QString& dataDir, QObject* parent = nullptr);

    // True when this process now holds the folder. False when another one does; that one has
    // then been asked to come forward and open `modelPath` (when not empty).
    bool claim(const QString& modelPath = {});

signals:
    // Another start asked for this window; `modelPath` is the model it was given, or empty.
    void activationRequested(const QString& modelPath);

private:
    void onConnection();

    QLockFile lock_;
    QString serverName_;
    QLocalServer server_;
};
