#include "settings_model.h"

#include <QLocale>
#include <QSettings>
#include <spdlog/spdlog.h>

#include "chat_store.h"
#include "kv/compression_presets.h"
#include "util/error.h"

namespace {

const QString kGroup = QStringLiteral("chat/");
// 2: only values that differ from the defaults are stored. Without it (version 1) every key was.
const QString kSettingsVersionKey = QStringLiteral("chat/settings_version");
constexpr int kSettingsVersion = 2;

// In a version 1 file, a prompt format saved without this key beside it was written by opening
// a model, not chosen, and reads as automatic.
const QString kPromptFormatChosenKey = QStringLiteral("chat/prompt_format_chosen");

// Version 1 wrote every key on any change, so a value equal to a version 1 default was most
// likely never chosen. Where that default has changed since, the new one replaces it: the
// repetition penalty (1, now 1.1: without it replies looped, docs/quality/repetition.md), and
// the compression settings when every one of them is version 1's (the paper's knobs, now the
// recall preset; a preset or knob chosen stays). A user who did choose the old value sets it
// again once.
void takeNewDefaults(ChatSettings& read)
{
    const ChatSettings defaults;
    if (read.sampling.repetition_penalty == 1.0f)
        read.sampling.repetition_penalty = defaults.sampling.repetition_penalty;
    if (read.compression == pyramid::CompressionConfig{})
        read.compression = defaults.compression;
}

bool isPyramidKnob(const SettingField& field) { return qstrcmp(field.group, kPyramidSettingsGroup) == 0; }

QString kindName(SettingField::Kind kind)
{
    switch (kind) {
    case SettingField::Kind::Real: return QStringLiteral("real");
    case SettingField::Kind::Integer: return QStringLiteral("integer");
    case SettingField::Kind::Choice: return QStringLiteral("choice");
    }
    return {};
}

// What the panel shows: numbers with the user's decimal separator ("0,5"), which the fields
// read back. The settings file keeps the C form, whatever the locale.
QString shownText(const SettingField& field, const ChatSettings& settings)
{
    const QString text = field.get(settings);
    if (field.kind != SettingField::Kind::Real)
        return text;
    QLocale locale;
    locale.setNumberOptions(QLocale::OmitGroupSeparator);
    return locale.toString(text.toDouble(), 'g', 6);
}

} // namespace

SettingsModel::SettingsModel(QSettings& settings, ChatStore& store, QObject* parent)
    : QAbstractListModel(parent), settings_(settings), store_(store)
{
    // Field by field, so one bad value costs only itself (the next save drops it).
    const bool version1 = settings_.value(kSettingsVersionKey).toInt() < kSettingsVersion;
    const bool formatChosen = !version1 || settings_.value(kPromptFormatChosenKey).toBool();
    bool anyStored = false;
    for (const SettingField& field : settingFields()) {
        const QVariant stored = settings_.value(kGroup + field.key);
        anyStored = anyStored || stored.isValid();
        if (!stored.isValid() || (field.key == QLatin1String("prompt_format") && !formatChosen))
            continue;
        ChatSettings candidate = current_;
        QString problem = field.set(candidate, stored.toString()) ? validateChatSettings(candidate)
                                                                  : QStringLiteral("unreadable");
        if (problem.isEmpty())
            current_ = candidate;
        else
            spdlog::warn("settings: ignoring {} = '{}' ({}); using {}", field.key.toStdString(),
                         stored.toString().toStdString(), problem.toStdString(), field.get(current_).toStdString());
    }
    if (version1 && anyStored) {
        takeNewDefaults(current_);
        spdlog::info("settings: rewriting the settings file with only the values chosen");
        save();
    }
    startedWith_ = current_;
}

int SettingsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : settingFields().size(); }

QVariant SettingsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= settingFields().size())
        return {};
    const SettingField& field = settingFields().at(index.row());
    const auto draft = drafts_.constFind(field.key);
    switch (role) {
    case KeyRole: return field.key;
    case GroupRole: return tr(field.group);
    case Qt::DisplayRole:
    case LabelRole: return tr(field.label);
    case HelpRole: return tr(field.help);
    case KindRole: return kindName(field.kind);
    case TextRole: return draft != drafts_.constEnd() ? draft->text : shownText(field, current_);
    case ErrorRole: return draft != drafts_.constEnd() ? draft->error : QString();
    case ChoicesRole: return field.choices;
    case ChoiceLabelsRole: {
        QStringList labels = field.choices;
        for (qsizetype i = 0; i < field.choiceLabels.size() && i < labels.size(); ++i)
            labels[i] = tr(field.choiceLabels[i]);
        const qsizetype automatic = field.key == QLatin1String("prompt_format") ? labels.indexOf(kAutomaticPromptFormat) : -1;
        if (automatic >= 0)
            labels[automatic] = tr("Automatic (%1)", "the prompt format the open model names").arg(promptFormatName(detectedFormat_));
        return labels;
    }
    case ChoiceIndexRole: return field.choices.indexOf(field.get(current_));
    case GroupNoteRole: return groupNote(index.row());
    case ActiveRole: return !isPyramidKnob(field) || current_.compression.policy != pyramid::CompressionPolicyKind::Full;
    default: return {};
    }
}

QHash<int, QByteArray> SettingsModel::roleNames() const
{
    return {{KeyRole, "key"},   {GroupRole, "group"}, {LabelRole, "label"},     {HelpRole, "help"},
            {KindRole, "kind"}, {TextRole, "text"},   {ErrorRole, "error"},     {ChoicesRole, "choices"},
            {ChoiceLabelsRole, "choiceLabels"}, {ChoiceIndexRole, "choiceIndex"}, {GroupNoteRole, "groupNote"},
            {ActiveRole, "active"}};
}

QString SettingsModel::groupNote(int row) const
{
    const QVector<SettingField>& fields = settingFields();
    const bool firstOfGroup = row == 0 || qstrcmp(fields.at(row - 1).group, fields.at(row).group) != 0;
    if (!firstOfGroup || !isPyramidKnob(fields.at(row)))
        return {};
    const pyramid::CompressionPolicyKind policy = current_.compression.policy;
    if (policy == pyramid::CompressionPolicyKind::Pyramid)
        return {};
    const QString name = QString::fromStdString(pyramid::to_string(policy));
    if (policy == pyramid::CompressionPolicyKind::Full)
        return tr("The compression is %1: these settings are not used.").arg(name);
    // Every other policy (the baselines) keeps as many entries as PyramidInfer would, chosen its own way.
    return tr("The compression is %1: these settings only set its budget, how many entries it may keep "
              "(as many as PyramidInfer would); %1 chooses which.")
        .arg(name);
}

void SettingsModel::refreshAll()
{
    emit dataChanged(index(0), index(settingFields().size() - 1));
}

bool SettingsModel::restartNeeded() const
{
    return current_.language != startedWith_.language || current_.device != startedWith_.device ||
           current_.cpuThreads != startedWith_.cpuThreads || !(current_.kvTypes() == startedWith_.kvTypes());
}

int SettingsModel::rowOf(const QString& key) const
{
    const QVector<SettingField>& fields = settingFields();
    for (int row = 0; row < fields.size(); ++row) {
        if (fields.at(row).key == key)
            return row;
    }
    return -1;
}

bool SettingsModel::setValue(const QString& key, const QString& text)
{
    const int row = rowOf(key);
    if (row < 0)
        return false;
    const SettingField& field = settingFields().at(row);
    // Other fields hold valid values, so any problem found is this field's.
    ChatSettings candidate = current_;
    QString problem;
    if (!field.set(candidate, text))
        problem = field.kind == SettingField::Kind::Integer ? tr("Enter a whole number.")
                  : field.kind == SettingField::Kind::Real  ? tr("Enter a number.")
                                                            : tr("Choose one of: %1").arg(field.choices.join(QStringLiteral(", ")));
    else
        problem = validateChatSettings(candidate);

    const bool hadErrors = hasErrors();
    const bool neededRestart = restartNeeded();
    const QString presetBefore = activePreset();
    if (problem.isEmpty()) {
        current_ = candidate;
        drafts_.remove(key);
        save();
    } else {
        drafts_.insert(key, {text, problem});
    }
    if (key == QLatin1String("policy"))
        refreshAll();  // the PyramidInfer group's note and whether its fields count
    else
        emit dataChanged(index(row), index(row));
    if (hadErrors != hasErrors())
        emit errorsChanged();
    if (neededRestart != restartNeeded())
        emit restartNeededChanged();
    if (presetBefore != activePreset())
        emit activePresetChanged();
    return problem.isEmpty();
}

QString SettingsModel::value(const QString& key) const
{
    const int row = rowOf(key);
    return row < 0 ? QString() : settingFields().at(row).get(current_);
}

QString SettingsModel::error(const QString& key) const { return drafts_.value(key).error; }

QStringList SettingsModel::presetNames() const
{
    QStringList names;
    for (const std::string& name : pyramid::compression_preset_names())
        names.push_back(QString::fromStdString(name));
    return names;
}

QStringList SettingsModel::presetLabels() const
{
    QStringList labels;
    for (const QString& name : presetNames()) {
        QString label = name;
        if (name == QLatin1String("balanced"))
            label = tr("Balanced", "a compression preset");
        else if (name == QLatin1String("recall"))
            label = tr("Recall", "a compression preset: keeps what earlier turns said");
        else if (name == QLatin1String("max-saving"))
            label = tr("Most memory saved", "a compression preset");
        else if (name == QLatin1String("reference-7b"))
            label = tr("Paper, 7B settings", "a compression preset: PyramidInfer as its paper ran a 7B model");
        else if (name == QLatin1String("reference-13b"))
            label = tr("Paper, 13B settings", "a compression preset: PyramidInfer as its paper ran a 13B model");
        if (name == QLatin1String(pyramid::kChatCompressionPreset))
            label = tr("%1 (default)", "the compression preset a chat starts with").arg(label);
        labels.push_back(label);
    }
    return labels;
}

QString SettingsModel::activePreset() const
{
    for (const pyramid::CompressionPreset& preset : pyramid::compression_presets())
        if (preset.config == current_.compression)
            return QString::fromStdString(preset.name);
    return {};
}

void SettingsModel::applyPreset(const QString& name)
{
    ChatSettings next = current_;
    try {
        next.compression = pyramid::compression_preset(name.toStdString());
    } catch (const pyramid::Error& e) {
        spdlog::warn("settings: {}", e.what());
        return;
    }
    replaceAll(next);
}

QString SettingsModel::presetSummary(const QString& name) const
{
    pyramid::CompressionPreset preset;
    try {
        preset = pyramid::find_compression_preset(name.toStdString());
    } catch (const pyramid::Error&) {
        return {};
    }
    if (!preset.measured)
        return {};
    const pyramid::PresetMeasurement& m = *preset.measured;
    const QLocale locale;
    const auto percent = [&](double share) { return locale.toString(100.0 * share, 'f', 0); };
    const QString policy = preset.config.policy == pyramid::CompressionPolicyKind::SnapKV ? QStringLiteral("SnapKV")
                           : preset.config.policy == pyramid::CompressionPolicyKind::Pyramid
                               ? QStringLiteral("PyramidInfer")
                               : QString::fromStdString(pyramid::to_string(preset.config.policy));
    return tr("%1, keeps %2% of the cache: %3% perplexity, recalls %4% of what the full cache recalls "
              "(measured on SmolLM2-135M-Instruct)")
        .arg(policy, percent(m.kv_share),
             (m.perplexity_change >= 0 ? QStringLiteral("+") : QString()) +
                 locale.toString(100.0 * m.perplexity_change, 'f', 1),
             percent(m.recall_vs_full));
}

void SettingsModel::resetToDefaults() { replaceAll(resetChatSettings(current_)); }

void SettingsModel::setDetectedPromptFormat(pyramid::PromptFormat format)
{
    if (format == detectedFormat_)
        return;
    detectedFormat_ = format;
    const int row = rowOf(QStringLiteral("prompt_format"));
    emit dataChanged(index(row), index(row));  // the automatic choice's label names it
}

pyramid::PromptFormat SettingsModel::promptFormat() const { return current_.promptFormat.value_or(detectedFormat_); }

void SettingsModel::replaceAll(const ChatSettings& settings)
{
    const bool hadErrors = hasErrors();
    const bool neededRestart = restartNeeded();
    const QString presetBefore = activePreset();
    current_ = settings;
    drafts_.clear();
    save();
    refreshAll();
    if (hadErrors)
        emit errorsChanged();
    if (neededRestart != restartNeeded())
        emit restartNeededChanged();
    if (presetBefore != activePreset())
        emit activePresetChanged();
}

void SettingsModel::save() const
{
    const ChatSettings defaults;
    for (const SettingField& field : settingFields()) {
        const QString value = field.get(current_);
        if (value == field.get(defaults))
            settings_.remove(kGroup + field.key);
        else
            settings_.setValue(kGroup + field.key, value);
    }
    settings_.remove(kPromptFormatChosenKey);
    settings_.setValue(kSettingsVersionKey, kSettingsVersion);
}

void SettingsModel::setConversation(qint64 conversationId)
{
    conversationId_ = conversationId;
    const QString text = store_.systemPrompt(conversationId);
    if (text != systemPrompt_) {
        systemPrompt_ = text;
        emit systemPromptChanged();
    }
}

void SettingsModel::setSystemPrompt(const QString& text)
{
    if (text == systemPrompt_)
        return;
    systemPrompt_ = text;
    if (conversationId_ != 0)
        store_.setSystemPrompt(conversationId_, text);
    emit systemPromptChanged();
}
