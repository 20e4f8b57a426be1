#pragma once
// Everything a turn is generated with apart from the conversation itself, and the editable
// fields the settings panel shows for it.
#include <QString>
#include <QStringList>
#include <QVector>
#include <functional>
#include <optional>

#include "backend/kv_precision.h"
#include "chat/chat_engine.h"
#include "kv/compression_presets.h"

struct ChatSettings {
    pyramid::SamplingParams sampling = pyramid::chat_sampling();
    pyramid::CompressionConfig compression = pyramid::chat_compression();
    // The turn format; nullopt: the one the open model's chat template names (SettingsModel).
    std::optional<pyramid::PromptFormat> promptFormat;
    int maxNewTokens = 512;
    // What the next turn does with the previous turns' cache, and what happens when the
    // conversation outgrows the context (docs/multi-turn.md).
    pyramid::ContextMode contextMode = pyramid::ContextMode::Extend;
    pyramid::OverflowPolicy overflow = pyramid::OverflowPolicy::Stop;
    // The interface language ("system", or a locale name with a translation: "en", "de",
    // "zh_CN"); read once at start-up (main.cpp), so a change shows at the next start.
    QString language = QStringLiteral("system");
    // The colours: "system" (the platform's), "light" or "dark" (app_theme.h); applies at once.
    QString theme = QStringLiteral("system");
    // Where models run: "auto" (the GPU when a CUDA device and runtime exist, else the CPU),
    // "cpu" or "cuda"; read at start-up like the language.
    QString device = QStringLiteral("auto");
    // The threads a model on the CPU runs on; 0: one per performance core (cpu_cores.h). Read at
    // start-up like the device.
    int cpuThreads = 0;
    // How the KV cache is stored: keys and values, unless the values are set apart (nullopt: as
    // the keys). A GPU stores q8 and q4 as chosen and its own half precision in place of f16
    // and f32 (cuda_kv_types_for). Read at start-up like the device.
    pyramid::KvPrecision kvPrecision = pyramid::KvPrecision::F16;
    std::optional<pyramid::KvPrecision> kvValuePrecision;
    pyramid::KvTypes kvTypes() const { return {kvPrecision, kvValuePrecision.value_or(kvPrecision)}; }
    // Settings -> Server: the open model served to other programs over the OpenAI-compatible
    // API on 127.0.0.1:servePort (desktop_server.h); applies at once.
    bool serve = false;
    int servePort = 8080;
    // Browser extensions and web pages may call it too (CORS for any origin): off, so that a
    // page the user opens cannot use the model unless they say so.
    bool serveWebPages = false;
};

// The QSettings keys main.cpp reads the start-up settings from (the settings panel writes them).
inline const QString kLanguageSettingKey = QStringLiteral("chat/language");
inline const QString kDeviceSettingKey = QStringLiteral("chat/device");
inline const QString kCpuThreadsSettingKey = QStringLiteral("chat/cpu_threads");
inline const QString kKvPrecisionSettingKey = QStringLiteral("chat/kv_precision");
inline const QString kKvValuePrecisionSettingKey = QStringLiteral("chat/kv_precision_values");
// The value of the latter that stores values as the keys.
inline const QString kSameKvPrecision = QStringLiteral("same");

// The first problem found, worded for the user in their language; empty when the settings can run.
QString validateChatSettings(const ChatSettings& settings);

// What "Reset all" gives: the defaults, except for the settings read at start-up (language,
// device, CPU threads, cache precision), the theme and the server, which say how the app runs and looks
// rather than how it replies.
ChatSettings resetChatSettings(const ChatSettings& current);

QString promptFormatName(pyramid::PromptFormat format);  // pyramid::prompt_format_name: "chatml", "raw", ...
// The names pyramid-cli uses too: "extend" / "rebuild" and "stop" / "drop-oldest" / "reencode".
QString contextModeName(pyramid::ContextMode mode);
QString overflowPolicyName(pyramid::OverflowPolicy policy);

// The prompt format choice that follows the open model (ChatSettings::promptFormat nullopt).
inline const QString kAutomaticPromptFormat = QStringLiteral("auto");

// One editable setting. Values travel as text so a field can show exactly what was typed.
struct SettingField {
    enum class Kind { Real, Integer, Choice };
    QString key;        // also the QSettings key; the compression knobs use their JSON names
    const char* group;  // untranslated, translated in the "SettingsModel" context
    const char* label;
    const char* help;
    Kind kind;
    QStringList choices;        // Choice only: the values, as stored
    // What the list shows for the first values, translated like `label`; the rest (all of them
    // when empty) show as they are stored.
    QVector<const char*> choiceLabels;
    std::function<QString(const ChatSettings&)> get;
    std::function<bool(ChatSettings&, const QString&)> set;  // false: not a value of this kind
};

const QVector<SettingField>& settingFields();

// The group of PyramidInfer's own knobs (untranslated, as SettingField::group): with another
// policy they only size its budget, and with the full cache they do nothing.
inline constexpr const char* kPyramidSettingsGroup = QT_TRANSLATE_NOOP("SettingsModel", "PyramidInfer");
