#pragma once
// One PyramidChat per data folder. Two would share one conversation database: each would
// purge the conversations the other still offers to undo, and both would write turns into
// the same conversation. A second start asks the first to show its window (and open the
// model it was given) and ends.
//
// On Wayland a window may take the focus only with an activation token from whoever started
// the program (the launcher puts it in XDG_ACTIVATION_TOKEN). The second start was given it,
// so it sends it along and the first one activates its window with it; without it GNOME only
// says the app "is ready".
#include <QLocalServer>
#include <QLockFile>
#include <QObject>
#include <QString>

class QWindow;

class SingleInstance : public QObject {
    Q_OBJECT

public:
    enum class Claim {
        Owner,       // this process holds the folder (or no lock can be made there: it goes on)
        Forwarded,   // another one holds it and was asked to come forward
        Unanswered,  // another one holds it but did not answer (hung, or on another machine)
    };

    explicit SingleInstance(const QString& dataDir, QObject* parent = nullptr);

    // Takes the folder, or asks its holder to come forward and open `modelPath` (when not
    // empty), handing over this start's activation token (used up here once sent).
    Claim claim(const QString& modelPath = {});

    // For Unanswered: who holds the folder and how to free it, for the user.
    QString holderDescription() const;

    // Shows, raises and activates `window` with `activationToken` (may be empty).
    static void bringForward(QWindow& window, const QString& activationToken);

signals:
    // Another start asked for this window; `modelPath` is the model it was given, or empty;
    // `activationToken` its launcher's token for bringForward, or empty.
    void activationRequested(const QString& modelPath, const QString& activationToken);

private:
    void onConnection();

    QLockFile lock_;
    QString serverName_;
    QLocalServer server_;
};
