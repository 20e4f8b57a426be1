#pragma once
// The engine's English description of where a model runs ("cpu: 2 threads, f16 KV cache",
// "cuda: NVIDIA H100") in the user's language, for the model bar and the live panel alike.
// The forms the engine has are said again; anything else is shown as it comes.
#include <QString>

QString deviceText(const QString& engineDevice);
// Whether the engine's description names a GPU ("cuda: ...").
bool runsOnGpu(const QString& engineDevice);
