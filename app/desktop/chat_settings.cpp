#include "chat_settings.h"

#include <QCoreApplication>
#include <QLocale>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "backend/cpu_cores.h"
#include "util/error.h"

using pyramid::CompressionPolicyKind;
using pyramid::ContextMode;
using pyramid::DecaySchedule;
using pyramid::OverflowPolicy;
using pyramid::PromptFormat;

namespace {

// The settings panel shows these texts: they share its translation context (lupdate reads the
// context from the macro; a plain helper function would hide it).
struct SettingsText {
    Q_DECLARE_TR_FUNCTIONS(SettingsModel)
};

template <typename T>
QString formatNumber(T value)
{
    if constexpr (std::is_integral_v<T>)
        return QString::number(value);
    else
        return QString::number(static_cast<double>(value), 'g', 6);
}

// Accepts the C locale and the user's locale ("0.5" and "0,5").
template <typename T>
std::optional<T> parseNumber(const QString& text)
{
    const QString trimmed = text.trimmed();
    bool ok = false;
    if constexpr (std::is_same_v<T, uint64_t>) {
        const qulonglong v = trimmed.toULongLong(&ok);
        return ok ? std::optional<T>(v) : std::nullopt;
    } else if constexpr (std::is_integral_v<T>) {
        const int v = trimmed.toInt(&ok);
        return ok ? std::optional<T>(v) : std::nullopt;
    } else {
        double v = trimmed.toDouble(&ok);
        if (!ok)
            v = QLocale().toDouble(trimmed, &ok);
        // Finite in T too: 1e300 is a double but no float.
        const bool fits = std::isfinite(v) && std::abs(v) <= double(std::numeric_limits<T>::max());
        return ok && fits ? std::optional<T>(static_cast<T>(v)) : std::nullopt;
    }
}

// `ref` is a generic lambda returning a reference to the field in a ChatSettings.
template <typename Ref>
SettingField numberField(const char* key, const char* group, const char* label, const char* help, Ref ref)
{
    using T = std::remove_cvref_t<decltype(ref(std::declval<ChatSettings&>()))>;
    return {QString::fromLatin1(key), group, label, help,
            std::is_integral_v<T> ? SettingField::Kind::Integer : SettingField::Kind::Real, {}, {},
            [ref](const ChatSettings& s) { return formatNumber(ref(s)); },
            [ref](ChatSettings& s, const QString& text) {
                const std::optional<T> value = parseNumber<T>(text);
                if (value)
                    ref(s) = *value;
                return value.has_value();
            }};
}

// A choice among an enum's values, named by `name` and read back by matching those names;
// `labels` (one per value, or none) is what the list shows instead of the names.
template <typename Ref, typename Name, typename Enum = std::remove_cvref_t<std::invoke_result_t<Ref, ChatSettings&>>>
SettingField choiceField(const char* key, const char* group, const char* label, const char* help,
                         const std::vector<Enum>& all, Ref ref, Name name, QVector<const char*> labels = {})
{
    QStringList choices;
    for (Enum value : all)
        choices.push_back(name(value));
    return {QString::fromLatin1(key), group, label, help, SettingField::Kind::Choice, choices, std::move(labels),
            [ref, name](const ChatSettings& s) { return name(ref(s)); },
            [ref, name, all](ChatSettings& s, const QString& text) {
                for (Enum value : all) {
                    if (name(value) == text.trimmed()) {
                        ref(s) = value;
                        return true;
                    }
                }
                return false;
            }};
}

// A switch: "off" or "on", shown as Off and On.
template <typename Ref>
SettingField switchField(const char* key, const char* group, const char* label, const char* help, Ref ref)
{
    return choiceField(key, group, label, help, std::vector<bool>{false, true}, ref,
                       [](bool on) { return on ? QStringLiteral("on") : QStringLiteral("off"); },
                       {QT_TRANSLATE_NOOP("SettingsModel", "Off"), QT_TRANSLATE_NOOP("SettingsModel", "On")});
}

QString kvPrecisionName(pyramid::KvPrecision precision)
{
    return QString::fromLatin1(pyramid::kv_precision_name(precision));
}
QStringList kvValueChoices()
{
    return {kSameKvPrecision, QStringLiteral("f16"), QStringLiteral("q8"), QStringLiteral("q4"), QStringLiteral("f32")};
}
// "auto", then every count from one thread to the CPUs this process may use.
QStringList cpuThreadChoices()
{
    QStringList choices{QStringLiteral("auto")};
    const int cpus = pyramid::cpu_cores().logical;  // one topology read, not one per count
    for (int threads = 1; threads <= cpus; ++threads)
        choices.push_back(QString::number(threads));
    return choices;
}
QString policyName(CompressionPolicyKind kind) { return QString::fromStdString(pyramid::to_string(kind)); }
QString scheduleName(DecaySchedule schedule) { return QString::fromStdString(pyramid::to_string(schedule)); }

QStringList promptFormatChoices()
{
    QStringList choices{kAutomaticPromptFormat};
    for (pyramid::PromptFormat format : pyramid::all_prompt_formats())
        choices.push_back(promptFormatName(format));
    return choices;
}

// "“Recent ratio” must ...": the field's label as the panel shows it.
QString shownLabel(const char* key)
{
    for (const SettingField& field : settingFields())
        if (field.key == QLatin1String(key))
            return SettingsText::tr("“%1”", "a setting's name in a sentence").arg(SettingsText::tr(field.label));
    return QString::fromLatin1(key);
}

// The compression knobs' rules (CompressionConfig::validate), worded for the user: the core's
// own message names the JSON key in English. Any rule the core adds later still reaches the
// user through validateChatSettings, in the core's words.
QString compressionProblem(const pyramid::CompressionConfig& c)
{
    const pyramid::PyramidSettings& p = c.pyramid;
    if (!(std::isfinite(p.recent_ratio) && p.recent_ratio >= 0 && p.recent_ratio < 1))
        return SettingsText::tr("%1 must be at least 0 and below 1.").arg(shownLabel("recent_ratio"));
    for (const auto& [key, value] : {std::pair{"prefill_decay_ratio", p.prefill_decay_ratio},
                                     std::pair{"gen_decay_ratio", p.gen_decay_ratio},
                                     std::pair{"gen_compress_ratio", p.gen_compress_ratio}})
        if (!(std::isfinite(value) && value > 0 && value <= 1))
            return SettingsText::tr("%1 must be greater than 0 and at most 1.").arg(shownLabel(key));
    for (const auto& [key, value] : {std::pair{"min_context_length", p.min_context_length},
                                     std::pair{"sink_tokens", p.sink_tokens},
                                     std::pair{"pyramid_observation_window", p.observation_window}})
        if (value < 0)
            return SettingsText::tr("%1 must not be negative.").arg(shownLabel(key));
    for (const auto& [key, value] : {std::pair{"layerwise_downsample_interval", p.layerwise_downsample_interval},
                                     std::pair{"exceed_length_to_compress", p.exceed_length_to_compress}})
        if (value < 1)
            return SettingsText::tr("%1 must be at least 1.").arg(shownLabel(key));
    if (p.pooling_kernel < 1 || p.pooling_kernel % 2 == 0)
        return SettingsText::tr("%1 must be an odd number, at least 1.").arg(shownLabel("pyramid_pooling_kernel"));
    if (!(std::isfinite(p.distance_weight) && p.distance_weight > 0))
        return SettingsText::tr("%1 must be greater than 0.").arg(shownLabel("distance_weight"));
    if (!(std::isfinite(c.baseline_recent_fraction) && c.baseline_recent_fraction >= 0 && c.baseline_recent_fraction <= 1))
        return SettingsText::tr("%1 must be at least 0 and at most 1.").arg(shownLabel("baseline_recent_fraction"));
    if (!(std::isfinite(c.budget_fraction) && c.budget_fraction >= 0 && c.budget_fraction <= 1))
        return SettingsText::tr("%1 must be at least 0 and at most 1.").arg(shownLabel("budget_fraction"));
    return {};
}

QVector<SettingField> makeFields()
{
    const char* generation = QT_TRANSLATE_NOOP("SettingsModel", "Generation");
    const char* multiTurn = QT_TRANSLATE_NOOP("SettingsModel", "Multi-turn");
    const char* cache = QT_TRANSLATE_NOOP("SettingsModel", "KV cache");
    const char* pyramidGroup = kPyramidSettingsGroup;
    const char* interfaceGroup = QT_TRANSLATE_NOOP("SettingsModel", "Interface");
    const char* serverGroup = QT_TRANSLATE_NOOP("SettingsModel", "Server");
    const std::vector<DecaySchedule> decay = {DecaySchedule::Cosine, DecaySchedule::Linear, DecaySchedule::Constant};
    const QStringList languages = {QStringLiteral("system"), QStringLiteral("en"), QStringLiteral("de"),
                                   QStringLiteral("zh_CN")};
    const QStringList devices = {QStringLiteral("auto"), QStringLiteral("cpu"), QStringLiteral("cuda")};
    const QStringList threadCounts = cpuThreadChoices();
    const QStringList themes = {QStringLiteral("system"), QStringLiteral("light"), QStringLiteral("dark")};
    return {
        // Languages are listed by their own names, which are never translated.
        {QStringLiteral("language"), interfaceGroup, QT_TRANSLATE_NOOP("SettingsModel", "Language"),
         QT_TRANSLATE_NOOP("SettingsModel", "The language of the app; it changes the next time the app starts"),
         SettingField::Kind::Choice, languages,
         {QT_TRANSLATE_NOOP("SettingsModel", "System language"), "English", "Deutsch", "简体中文"},
         [](const ChatSettings& s) { return s.language; },
         [languages](ChatSettings& s, const QString& text) {
             if (!languages.contains(text.trimmed()))
                 return false;
             s.language = text.trimmed();
             return true;
         }},
        {QStringLiteral("theme"), interfaceGroup, QT_TRANSLATE_NOOP("SettingsModel", "Theme"),
         QT_TRANSLATE_NOOP("SettingsModel", "Light or dark colours, or those of the system; it changes at once"),
         SettingField::Kind::Choice, themes,
         {QT_TRANSLATE_NOOP("SettingsModel", "Follow the system"), QT_TRANSLATE_NOOP("SettingsModel", "Light"),
          QT_TRANSLATE_NOOP("SettingsModel", "Dark")},
         [](const ChatSettings& s) { return s.theme; },
         [themes](ChatSettings& s, const QString& text) {
             if (!themes.contains(text.trimmed()))
                 return false;
             s.theme = text.trimmed();
             return true;
         }},
        {QStringLiteral("device"), interfaceGroup, QT_TRANSLATE_NOOP("SettingsModel", "Device"),
         QT_TRANSLATE_NOOP("SettingsModel", "Where models run; it changes the next time the app starts"),
         SettingField::Kind::Choice, devices,
         {QT_TRANSLATE_NOOP("SettingsModel", "Automatic (the GPU when one is usable)"),
          QT_TRANSLATE_NOOP("SettingsModel", "CPU"), QT_TRANSLATE_NOOP("SettingsModel", "NVIDIA GPU (CUDA)")},
         [](const ChatSettings& s) { return s.device; },
         [devices](ChatSettings& s, const QString& text) {
             if (!devices.contains(text.trimmed()))
                 return false;
             s.device = text.trimmed();
             return true;
         }},
        {QStringLiteral("cpu_threads"), interfaceGroup, QT_TRANSLATE_NOOP("SettingsModel", "CPU threads"),
         QT_TRANSLATE_NOOP("SettingsModel",
                           "How many threads a model on the CPU runs on. Automatic: one per physical core of the "
                           "fastest kind; a core's second hardware thread and efficiency cores would slow the "
                           "others down. It changes the next time the app starts"),
         SettingField::Kind::Choice, threadCounts,
         {QT_TRANSLATE_NOOP("SettingsModel", "Automatic (one per performance core)")},
         [](const ChatSettings& s) { return s.cpuThreads > 0 ? QString::number(s.cpuThreads) : QStringLiteral("auto"); },
         [threadCounts](ChatSettings& s, const QString& text) {
             if (!threadCounts.contains(text.trimmed()))
                 return false;
             s.cpuThreads = text.trimmed() == QLatin1String("auto") ? 0 : text.trimmed().toInt();
             return true;
         }},
        {QStringLiteral("prompt_format"), generation, QT_TRANSLATE_NOOP("SettingsModel", "Prompt format"),
         QT_TRANSLATE_NOOP("SettingsModel", "The turn format the model was trained on: automatic uses the one the open "
                                            "model's chat template names. No system prompt is added unless you set one"),
         SettingField::Kind::Choice, promptFormatChoices(), {},
         [](const ChatSettings& s) { return s.promptFormat ? promptFormatName(*s.promptFormat) : kAutomaticPromptFormat; },
         [](ChatSettings& s, const QString& text) {
             if (text.trimmed() == kAutomaticPromptFormat) {
                 s.promptFormat.reset();
                 return true;
             }
             for (pyramid::PromptFormat format : pyramid::all_prompt_formats()) {
                 if (promptFormatName(format) == text.trimmed()) {
                     s.promptFormat = format;
                     return true;
                 }
             }
             return false;
         }},
        numberField("max_new_tokens", generation, QT_TRANSLATE_NOOP("SettingsModel", "Reply length limit (tokens)"),
                    QT_TRANSLATE_NOOP("SettingsModel", "The most tokens one reply may have"),
                    [](auto& s) -> auto& { return s.maxNewTokens; }),
        numberField("temperature", generation, QT_TRANSLATE_NOOP("SettingsModel", "Temperature"),
                    QT_TRANSLATE_NOOP("SettingsModel", "0 picks the most likely token every time"),
                    [](auto& s) -> auto& { return s.sampling.temperature; }),
        numberField("top_k", generation, QT_TRANSLATE_NOOP("SettingsModel", "Top-k"),
                    QT_TRANSLATE_NOOP("SettingsModel", "Sample among this many most likely tokens (0: off)"),
                    [](auto& s) -> auto& { return s.sampling.top_k; }),
        numberField("top_p", generation, QT_TRANSLATE_NOOP("SettingsModel", "Top-p"),
                    QT_TRANSLATE_NOOP("SettingsModel", "Sample among the tokens covering this probability (1: off)"),
                    [](auto& s) -> auto& { return s.sampling.top_p; }),
        numberField("min_p", generation, QT_TRANSLATE_NOOP("SettingsModel", "Min-p"),
                    QT_TRANSLATE_NOOP("SettingsModel", "Drop tokens below this fraction of the best one (0: off)"),
                    [](auto& s) -> auto& { return s.sampling.min_p; }),
        numberField("repetition_penalty", generation, QT_TRANSLATE_NOOP("SettingsModel", "Repetition penalty"),
                    QT_TRANSLATE_NOOP("SettingsModel", "Above 1 discourages repeating recent tokens (1: off)"),
                    [](auto& s) -> auto& { return s.sampling.repetition_penalty; }),
        numberField("repetition_window", generation, QT_TRANSLATE_NOOP("SettingsModel", "Repetition window"),
                    QT_TRANSLATE_NOOP("SettingsModel", "How many recent tokens the penalty looks at"),
                    [](auto& s) -> auto& { return s.sampling.repetition_window; }),
        numberField("seed", generation, QT_TRANSLATE_NOOP("SettingsModel", "Seed"),
                    QT_TRANSLATE_NOOP("SettingsModel", "0 draws a fresh seed for every reply"),
                    [](auto& s) -> auto& { return s.sampling.seed; }),
        choiceField("context_mode", multiTurn, QT_TRANSLATE_NOOP("SettingsModel", "Context mode"),
                    QT_TRANSLATE_NOOP("SettingsModel", "Keep the compressed cache and read only the new message, or read "
                                                       "the whole conversation again for every reply"),
                    {ContextMode::Extend, ContextMode::Rebuild}, [](auto& s) -> auto& { return s.contextMode; },
                    contextModeName,
                    {QT_TRANSLATE_NOOP("SettingsModel", "Extend the kept cache"),
                     QT_TRANSLATE_NOOP("SettingsModel", "Rebuild every turn")}),
        choiceField("overflow", multiTurn, QT_TRANSLATE_NOOP("SettingsModel", "When the context is full"),
                    QT_TRANSLATE_NOOP("SettingsModel", "Refuse the reply, forget the oldest exchanges, or keep the first "
                                                       "and most recent positions and renumber them"),
                    {OverflowPolicy::Stop, OverflowPolicy::DropOldestTurns, OverflowPolicy::Reencode},
                    [](auto& s) -> auto& { return s.overflow; }, overflowPolicyName,
                    {QT_TRANSLATE_NOOP("SettingsModel", "Stop and say so"),
                     QT_TRANSLATE_NOOP("SettingsModel", "Drop the oldest turns"),
                     QT_TRANSLATE_NOOP("SettingsModel", "Re-encode positions")}),
        choiceField("policy", cache, QT_TRANSLATE_NOOP("SettingsModel", "Compression"),
                    QT_TRANSLATE_NOOP("SettingsModel", "pyramid: PyramidInfer; full: no compression; local, h2o, snapkv, "
                                                       "pyramidkv: baselines with PyramidInfer's budget"),
                    {CompressionPolicyKind::Pyramid, CompressionPolicyKind::Full, CompressionPolicyKind::Local,
                     CompressionPolicyKind::H2O, CompressionPolicyKind::SnapKV, CompressionPolicyKind::PyramidKV},
                    [](auto& s) -> auto& { return s.compression.policy; }, policyName),
        numberField("budget_fraction", cache, QT_TRANSLATE_NOOP("SettingsModel", "Share of the cache kept"),
                    QT_TRANSLATE_NOOP("SettingsModel", "For local, h2o, snapkv and pyramidkv: the share of a full cache "
                                                       "they keep (0: as much as PyramidInfer keeps)"),
                    [](auto& s) -> auto& { return s.compression.budget_fraction; }),
        numberField("baseline_recent_fraction", cache, QT_TRANSLATE_NOOP("SettingsModel", "Baseline recent fraction"),
                    QT_TRANSLATE_NOOP("SettingsModel", "Share of a local or H2O budget kept for the newest entries"),
                    [](auto& s) -> auto& { return s.compression.baseline_recent_fraction; }),
        choiceField("kv_precision", cache, QT_TRANSLATE_NOOP("SettingsModel", "Cache precision"),
                    QT_TRANSLATE_NOOP("SettingsModel",
                                      "How the KV cache is stored: half precision takes half the memory of single "
                                      "precision, 8-bit about a quarter, 4-bit about an eighth; single precision is "
                                      "exact, and a GPU stores half precision in its place (8 and 4 bits need heads "
                                      "of a multiple of 32 values); it changes the next time the app starts"),
                    {pyramid::KvPrecision::F16, pyramid::KvPrecision::Q8, pyramid::KvPrecision::Q4,
                     pyramid::KvPrecision::F32},
                    [](auto& s) -> auto& { return s.kvPrecision; }, kvPrecisionName,
                    {QT_TRANSLATE_NOOP("SettingsModel", "Half (fp16)"),
                     QT_TRANSLATE_NOOP("SettingsModel", "8-bit (q8, about half of fp16)"),
                     QT_TRANSLATE_NOOP("SettingsModel", "4-bit (q4, about a quarter of fp16)"),
                     QT_TRANSLATE_NOOP("SettingsModel", "Single (float32)")}),
        {QStringLiteral("kv_precision_values"), cache, QT_TRANSLATE_NOOP("SettingsModel", "Values stored as"),
         QT_TRANSLATE_NOOP("SettingsModel",
                           "The values of the cache in another precision than its keys (on SmolLM2 the values "
                           "carry most of 8-bit's cost); it changes the next time the app starts"),
         SettingField::Kind::Choice, kvValueChoices(),
         {QT_TRANSLATE_NOOP("SettingsModel", "As the keys"), QT_TRANSLATE_NOOP("SettingsModel", "Half (fp16)"),
          QT_TRANSLATE_NOOP("SettingsModel", "8-bit (q8)"), QT_TRANSLATE_NOOP("SettingsModel", "4-bit (q4)"),
          QT_TRANSLATE_NOOP("SettingsModel", "Single (float32)")},
         [](const ChatSettings& s) { return s.kvValuePrecision ? kvPrecisionName(*s.kvValuePrecision) : kSameKvPrecision; },
         [](ChatSettings& s, const QString& text) {
             if (text.trimmed() == kSameKvPrecision) {
                 s.kvValuePrecision.reset();
                 return true;
             }
             try {
                 s.kvValuePrecision = pyramid::parse_kv_precision(text.trimmed().toStdString());
             } catch (const pyramid::Error&) {
                 return false;
             }
             return true;
         }},
        numberField("recent_ratio", pyramidGroup, QT_TRANSLATE_NOOP("SettingsModel", "Recent ratio"),
                    QT_TRANSLATE_NOOP("SettingsModel", "Share of the prompt whose attention decides what is kept"),
                    [](auto& s) -> auto& { return s.compression.pyramid.recent_ratio; }),
        numberField("prefill_decay_ratio", pyramidGroup, QT_TRANSLATE_NOOP("SettingsModel", "Prefill decay ratio"),
                    QT_TRANSLATE_NOOP("SettingsModel", "How much each deeper layer keeps after the prompt"),
                    [](auto& s) -> auto& { return s.compression.pyramid.prefill_decay_ratio; }),
        choiceField("prefill_decay_strategy", pyramidGroup, QT_TRANSLATE_NOOP("SettingsModel", "Prefill decay schedule"),
                    QT_TRANSLATE_NOOP("SettingsModel", "How the kept share falls from layer to layer"), decay,
                    [](auto& s) -> auto& { return s.compression.pyramid.prefill_decay_strategy; }, scheduleName),
        numberField("min_context_length", pyramidGroup, QT_TRANSLATE_NOOP("SettingsModel", "Minimum context length"),
                    QT_TRANSLATE_NOOP("SettingsModel", "No layer keeps fewer entries than this"),
                    [](auto& s) -> auto& { return s.compression.pyramid.min_context_length; }),
        numberField("layerwise_downsample_interval", pyramidGroup,
                    QT_TRANSLATE_NOOP("SettingsModel", "Layer interval"),
                    QT_TRANSLATE_NOOP("SettingsModel", "Compress every this many layers"),
                    [](auto& s) -> auto& { return s.compression.pyramid.layerwise_downsample_interval; }),
        numberField("sink_tokens", pyramidGroup, QT_TRANSLATE_NOOP("SettingsModel", "Sink tokens"),
                    QT_TRANSLATE_NOOP("SettingsModel", "First entries that are always kept"),
                    [](auto& s) -> auto& { return s.compression.pyramid.sink_tokens; }),
        numberField("distance_weight", pyramidGroup, QT_TRANSLATE_NOOP("SettingsModel", "Distance weight"),
                    QT_TRANSLATE_NOOP("SettingsModel", "Weight of the newest queries in the attention score"),
                    [](auto& s) -> auto& { return s.compression.pyramid.distance_weight; }),
        numberField("gen_decay_ratio", pyramidGroup, QT_TRANSLATE_NOOP("SettingsModel", "Generation decay ratio"),
                    QT_TRANSLATE_NOOP("SettingsModel", "How much each deeper layer keeps while generating"),
                    [](auto& s) -> auto& { return s.compression.pyramid.gen_decay_ratio; }),
        choiceField("gen_decay_strategy", pyramidGroup, QT_TRANSLATE_NOOP("SettingsModel", "Generation decay schedule"),
                    QT_TRANSLATE_NOOP("SettingsModel", "How that share falls from layer to layer"), decay,
                    [](auto& s) -> auto& { return s.compression.pyramid.gen_decay_strategy; }, scheduleName),
        numberField("gen_compress_ratio", pyramidGroup, QT_TRANSLATE_NOOP("SettingsModel", "Generation compress ratio"),
                    QT_TRANSLATE_NOOP("SettingsModel", "Share of the new entries kept at each compression"),
                    [](auto& s) -> auto& { return s.compression.pyramid.gen_compress_ratio; }),
        numberField("exceed_length_to_compress", pyramidGroup,
                    QT_TRANSLATE_NOOP("SettingsModel", "Compress after (tokens)"),
                    QT_TRANSLATE_NOOP("SettingsModel", "New entries that trigger a compression while generating"),
                    [](auto& s) -> auto& { return s.compression.pyramid.exceed_length_to_compress; }),
        numberField("pyramid_observation_window", pyramidGroup, QT_TRANSLATE_NOOP("SettingsModel", "Scoring window"),
                    QT_TRANSLATE_NOOP("SettingsModel", "Score the prompt by the attention of this many of its last "
                                                       "tokens (0: the whole recent window, as in the paper)"),
                    [](auto& s) -> auto& { return s.compression.pyramid.observation_window; }),
        numberField("pyramid_pooling_kernel", pyramidGroup, QT_TRANSLATE_NOOP("SettingsModel", "Score pooling"),
                    QT_TRANSLATE_NOOP("SettingsModel", "Average each entry's score over this many neighbouring entries, "
                                                       "so that an entry's neighbours are kept with it (odd; 1: none, "
                                                       "as in the paper)"),
                    [](auto& s) -> auto& { return s.compression.pyramid.pooling_kernel; }),
        switchField("serve", serverGroup, QT_TRANSLATE_NOOP("SettingsModel", "Serve this model on localhost"),
                    QT_TRANSLATE_NOOP("SettingsModel", "Other programs on this computer (editors, scripts, OpenAI "
                                                       "clients) can use the open model over an OpenAI-compatible "
                                                       "API; your own replies come first"),
                    [](auto& s) -> auto& { return s.serve; }),
        numberField("serve_port", serverGroup, QT_TRANSLATE_NOOP("SettingsModel", "Port"),
                    QT_TRANSLATE_NOOP("SettingsModel", "The TCP port on 127.0.0.1 the server listens on"),
                    [](auto& s) -> auto& { return s.servePort; }),
        switchField("serve_web_pages", serverGroup, QT_TRANSLATE_NOOP("SettingsModel", "Let web pages use it"),
                    QT_TRANSLATE_NOOP("SettingsModel", "Browser extensions and web-based chat clients may call the "
                                                       "server. Any web page you open could then use the model: "
                                                       "leave it off unless such a client needs it"),
                    [](auto& s) -> auto& { return s.serveWebPages; }),
    };
}

} // namespace

QString promptFormatName(PromptFormat format)
{
    return QString::fromStdString(std::string(pyramid::prompt_format_name(format)));
}

QString contextModeName(ContextMode mode)
{
    return mode == ContextMode::Rebuild ? QStringLiteral("rebuild") : QStringLiteral("extend");
}

QString overflowPolicyName(OverflowPolicy policy)
{
    switch (policy) {
    case OverflowPolicy::Stop: return QStringLiteral("stop");
    case OverflowPolicy::DropOldestTurns: return QStringLiteral("drop-oldest");
    case OverflowPolicy::Reencode: return QStringLiteral("reencode");
    }
    return QStringLiteral("stop");
}

const QVector<SettingField>& settingFields()
{
    static const QVector<SettingField> fields = makeFields();
    return fields;
}

QString validateChatSettings(const ChatSettings& s)
{
    const pyramid::SamplingParams& p = s.sampling;
    if (s.maxNewTokens < 1)
        return SettingsText::tr("The reply length limit must be at least 1.");
    if (!(p.temperature >= 0))
        return SettingsText::tr("Temperature must not be negative.");
    if (p.top_k < 0)
        return SettingsText::tr("Top-k must not be negative.");
    if (!(p.top_p > 0 && p.top_p <= 1))
        return SettingsText::tr("Top-p must be greater than 0 and at most 1.");
    if (!(p.min_p >= 0 && p.min_p < 1))
        return SettingsText::tr("Min-p must be at least 0 and below 1.");
    if (!(p.repetition_penalty > 0))
        return SettingsText::tr("The repetition penalty must be positive.");
    if (p.repetition_window < 0)
        return SettingsText::tr("The repetition window must not be negative.");
    if (s.servePort < 1 || s.servePort > 65535)
        return SettingsText::tr("The server port must be between 1 and 65535.");
    if (const QString problem = compressionProblem(s.compression); !problem.isEmpty())
        return problem;
    try {
        s.compression.validate();
    } catch (const pyramid::Error& e) {
        return SettingsText::tr("The compression settings cannot be used: %1").arg(QString::fromStdString(e.what()));
    }
    return {};
}

ChatSettings resetChatSettings(const ChatSettings& current)
{
    ChatSettings defaults;
    defaults.language = current.language;
    defaults.device = current.device;
    defaults.cpuThreads = current.cpuThreads;
    defaults.kvPrecision = current.kvPrecision;
    defaults.kvValuePrecision = current.kvValuePrecision;
    defaults.theme = current.theme;
    defaults.serve = current.serve;
    defaults.servePort = current.servePort;
    defaults.serveWebPages = current.serveWebPages;
    return defaults;
}
