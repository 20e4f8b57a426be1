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
    enum class Claim {
        Owner,       // this process holds the folder (or no lock can be made there: it goes on)
        Forwarded,   // another one holds it and was asked to come forward
        Unanswered,  // another one holds it but did not answer (hung, or on another machine)
    };

    explicit SingleInstance(const QString& dataDir, QObject* parent = nullptr);

    // Takes the folder, or asks its holder to come forward and open `modelPath` (when not empty).
    Claim claim(const QString& modelPath = {});

    // For Unanswered: who holds the folder and how to free it, for the user.
    QString holderDescription() const;

signals:
    // Another start asked for this window; `modelPath` is the model it was given, or empty.
    void activationRequested(const QString& modelPath);

private:
    void onConnection();

    QLockFile lock_;
    QString serverName_;
    QLocalServer server_;
};
