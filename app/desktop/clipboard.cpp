#include "clipboard.h"

#include <QClipboard>
#include <QGuiApplication>

void Clipboard::copy(const QString& text) const
{
    if (QClipboard* clipboard = QGuiApplication::clipboard())
        clipboard->setText(text);
}
