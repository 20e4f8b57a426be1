#pragma once
// The generation and compression settings as a list of editable fields (see chat_settings.h),
// kept in QSettings, plus the current conversation's system prompt, kept in the ChatStore.
//
// An edit that does not validate is not applied: the field keeps the text and shows the
// error beside it, and turns go on with the last valid settings. A valid edit applies to the
// next turn; a reply already running keeps the settings it started with. The start-up
// settings (language, device, cache precision) apply at the next start: restartNeeded says
// when one of them differs from what this run started with.
//
// The prompt format is automatic unless the user picks one: the format the open model's chat
// template names (setDetectedPromptFormat, from ModelManager).
//
// The settings file holds only the values that differ from the defaults, so that a default
// improved by a later version reaches every user who never chose that setting. Files written
// before that (settings version 1) held every key: reading one drops the values that were
// version 1's defaults and have changed since, then writes the file the new way.
#include <QAbstractListModel>
#include <QHash>
#include <QStringList>

#include "chat_settings.h"

class ChatStore;
class QSettings;

class SettingsModel : public QAbstractListModel {
    Q_OBJECT
    Q_PROPERTY(QString systemPrompt READ systemPrompt WRITE setSystemPrompt NOTIFY systemPromptChanged)
    Q_PROPERTY(QStringList presetNames READ presetNames CONSTANT)
    Q_PROPERTY(QStringList presetLabels READ presetLabels CONSTANT)
    Q_PROPERTY(QString activePreset READ activePreset NOTIFY activePresetChanged)
    Q_PROPERTY(bool hasErrors READ hasErrors NOTIFY errorsChanged)
    Q_PROPERTY(bool restartNeeded READ restartNeeded NOTIFY restartNeededChanged)

public:
    enum Role {
        KeyRole = Qt::UserRole + 1,
        GroupRole,
        LabelRole,
        HelpRole,
        KindRole,         // "real", "integer" or "choice"
        TextRole,         // the value, or what was typed while it is invalid
        ErrorRole,        // empty when the field is valid
        ChoicesRole,       // the values setValue() takes
        ChoiceLabelsRole,  // what the list shows for them, one per value
        ChoiceIndexRole,   // -1 for number fields
        GroupNoteRole,     // on a group's first field: what the group does under the other settings
        ActiveRole,        // false: the field has no effect under the other settings
    };

    SettingsModel(QSettings& settings, ChatStore& store, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    // The last valid settings: what the next turn runs with.
    const ChatSettings& current() const { return current_; }

    // Returns false and records an error for the field when the value is refused.
    Q_INVOKABLE bool setValue(const QString& key, const QString& text);
    Q_INVOKABLE QString value(const QString& key) const;
    Q_INVOKABLE QString error(const QString& key) const;
    Q_INVOKABLE void applyPreset(const QString& name);
    // What a preset keeps and what it was measured to cost, in the user's language ("" when it
    // was not measured), e.g. "SnapKV, keeps 76% of the cache: +0.6% perplexity, recalls 61% of
    // what the full cache recalls (measured on SmolLM2-135M-Instruct)".
    Q_INVOKABLE QString presetSummary(const QString& name) const;
    // Everything but the start-up settings (resetChatSettings).
    Q_INVOKABLE void resetToDefaults();
    // The format the open model names, used while the choice is automatic.
    void setDetectedPromptFormat(pyramid::PromptFormat format);
    pyramid::PromptFormat promptFormat() const;  // what the next turn is formatted with

    int rowOf(const QString& key) const;  // -1 for a key no field has
    QStringList presetNames() const;
    // What the preset box shows for each of presetNames, in the user's language, the one a chat
    // starts with marked: "Recall (default)", "Balanced", ... (a preset the app has no words for:
    // its name).
    QStringList presetLabels() const;
    // The preset whose compression settings are the current ones (a fresh app's: recall),
    // "" when none is (a knob set by hand): what the settings panel shows as in effect.
    QString activePreset() const;
    bool hasErrors() const { return !drafts_.isEmpty(); }
    bool restartNeeded() const;

    void setConversation(qint64 conversationId);  // whose system prompt is shown and edited
    QString systemPrompt() const { return systemPrompt_; }
    void setSystemPrompt(const QString& text);

signals:
    void systemPromptChanged();
    void errorsChanged();
    void restartNeededChanged();
    void activePresetChanged();

private:
    struct Draft {
        QString text;
        QString error;
    };
    void replaceAll(const ChatSettings& settings);  // clears drafts, saves, refreshes every row
    void refreshAll();
    QString groupNote(int row) const;
    void save() const;

    QSettings& settings_;
    ChatStore& store_;
    ChatSettings current_;
    ChatSettings startedWith_;  // as read at construction: what this run's start-up settings are
    pyramid::PromptFormat detectedFormat_ = pyramid::PromptFormat::Llama2Chat;  // before any model
    QHash<QString, Draft> drafts_;  // refused edits by key
    qint64 conversationId_ = 0;
    QString systemPrompt_;
};
