#pragma once
// Lets QML put text on the system clipboard (the copy buttons on messages and code blocks).
#include <QObject>

class Clipboard : public QObject {
    Q_OBJECT

public:
    using QObject::QObject;
    Q_INVOKABLE void copy(const QString& text) const;
};
