#pragma once
// The live panel's numbers after a reply, written as JSON text for the ChatStore and read
// back when the conversation is shown again (after a switch or a restart). Only what the
// panel shows is kept; the GPU's memory is not (it is read live). Reading gives nullopt for
// text that is not such a snapshot (a damaged row costs the panel, never the conversation).
#include <QString>
#include <optional>

#include "generate/generation_stats.h"

QString statsSnapshotToJson(const pyramid::GenerationStats& stats);
std::optional<pyramid::GenerationStats> statsSnapshotFromJson(const QString& json);
