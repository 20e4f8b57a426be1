// SettingsModel: inline validation through CompressionConfig::validate and the sampling
// checks, refused edits leaving the last valid value in force, QSettings persistence,
// presets, and the per-conversation system prompt.
#include <QScopeGuard>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include "chat_store.h"
#include "settings_model.h"

namespace {

int rowOf(const SettingsModel& model, const QString& key)
{
    for (int row = 0; row < model.rowCount(); ++row) {
        if (model.data(model.index(row), SettingsModel::KeyRole).toString() == key)
            return row;
    }
    return -1;
}

QVariant role(const SettingsModel& model, const QString& key, int role)
{
    return model.data(model.index(rowOf(model, key)), role);
}

} // namespace

class SettingsTest : public QObject {
    Q_OBJECT

private slots:
    void listsEveryKnob()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath("s.ini"), QSettings::IniFormat);
        ChatStore store(dir.filePath("c.sqlite"));
        SettingsModel model(settings, store);
        for (const char* key : {"temperature", "top_k", "top_p", "min_p", "repetition_penalty", "seed",
                                "max_new_tokens", "prompt_format", "policy", "recent_ratio",
                                "prefill_decay_ratio", "prefill_decay_strategy", "min_context_length",
                                "layerwise_downsample_interval", "sink_tokens", "distance_weight",
                                "gen_decay_ratio", "gen_decay_strategy", "gen_compress_ratio",
                                "exceed_length_to_compress", "baseline_recent_fraction", "context_mode",
                                "overflow"})
            QVERIFY2(rowOf(model, key) >= 0, key);
        QCOMPARE(role(model, "policy", SettingsModel::KindRole).toString(), QStringLiteral("choice"));
        QVERIFY(role(model, "policy", SettingsModel::ChoicesRole).toStringList().contains("pyramid"));
        QCOMPARE(role(model, "top_k", SettingsModel::KindRole).toString(), QStringLiteral("integer"));
        // Defaults are the core's defaults.
        const pyramid::CompressionConfig defaults;
        QCOMPARE(model.current().compression.pyramid.recent_ratio, defaults.pyramid.recent_ratio);
        QCOMPARE(model.value("recent_ratio").toDouble(), defaults.pyramid.recent_ratio);
    }

    void multiTurnChoicesPersist()
    {
        QTemporaryDir dir;
        const QString ini = dir.filePath("s.ini");
        ChatStore store(dir.filePath("c.sqlite"));
        {
            QSettings settings(ini, QSettings::IniFormat);
            SettingsModel model(settings, store);
            // Defaults: extend the cache, stop when the context is full (docs/multi-turn.md).
            QCOMPARE(model.current().contextMode, pyramid::ContextMode::Extend);
            QCOMPARE(model.current().overflow, pyramid::OverflowPolicy::Stop);
            QCOMPARE(model.value("context_mode"), QStringLiteral("extend"));
            QCOMPARE(model.value("overflow"), QStringLiteral("stop"));
            // The list shows a label for every value, and the index of the current one.
            for (const char* key : {"context_mode", "overflow"}) {
                const QStringList values = role(model, key, SettingsModel::ChoicesRole).toStringList();
                const QStringList labels = role(model, key, SettingsModel::ChoiceLabelsRole).toStringList();
                QCOMPARE(labels.size(), values.size());
                QVERIFY(!labels.contains(QString()));
                QCOMPARE(role(model, key, SettingsModel::ChoiceIndexRole).toInt(), 0);
            }
            QCOMPARE(role(model, "overflow", SettingsModel::ChoicesRole).toStringList(),
                     (QStringList{"stop", "drop-oldest", "reencode"}));
            // Fields without labels show their values.
            QCOMPARE(role(model, "policy", SettingsModel::ChoiceLabelsRole).toStringList(),
                     role(model, "policy", SettingsModel::ChoicesRole).toStringList());

            QVERIFY(!model.setValue("overflow", "truncate"));
            QVERIFY(model.error("overflow").contains("drop-oldest"));
            QCOMPARE(model.current().overflow, pyramid::OverflowPolicy::Stop);
            QVERIFY(model.setValue("context_mode", "rebuild"));
            QVERIFY(model.setValue("overflow", "reencode"));
            QCOMPARE(role(model, "overflow", SettingsModel::ChoiceIndexRole).toInt(), 2);
        }
        QSettings settings(ini, QSettings::IniFormat);
        SettingsModel model(settings, store);
        QCOMPARE(model.current().contextMode, pyramid::ContextMode::Rebuild);
        QCOMPARE(model.current().overflow, pyramid::OverflowPolicy::Reencode);
        QVERIFY(model.setValue("overflow", "drop-oldest"));
        QCOMPARE(model.current().overflow, pyramid::OverflowPolicy::DropOldestTurns);
        model.resetToDefaults();
        QCOMPARE(model.current().contextMode, pyramid::ContextMode::Extend);
        QCOMPARE(model.current().overflow, pyramid::OverflowPolicy::Stop);
    }

    void refusesInvalidValuesWithInlineErrors()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath("s.ini"), QSettings::IniFormat);
        ChatStore store(dir.filePath("c.sqlite"));
        SettingsModel model(settings, store);
        const double before = model.current().compression.pyramid.recent_ratio;

        QVERIFY(!model.setValue("recent_ratio", "1.5"));
        // The error comes from CompressionConfig::validate and names the field.
        QVERIFY(model.error("recent_ratio").contains("recent_ratio"));
        QVERIFY(model.hasErrors());
        QCOMPARE(role(model, "recent_ratio", SettingsModel::ErrorRole).toString(), model.error("recent_ratio"));
        QCOMPARE(role(model, "recent_ratio", SettingsModel::TextRole).toString(), QStringLiteral("1.5"));
        QCOMPARE(model.current().compression.pyramid.recent_ratio, before);  // not applied

        QVERIFY(!model.setValue("sink_tokens", "many"));
        QVERIFY(!model.error("sink_tokens").isEmpty());
        QVERIFY(!model.setValue("top_p", "0"));
        QVERIFY(!model.error("top_p").isEmpty());
        QVERIFY(!model.setValue("policy", "zip"));
        QVERIFY(!model.setValue("max_new_tokens", "0"));

        QVERIFY(model.setValue("recent_ratio", "0.3"));
        QVERIFY(model.error("recent_ratio").isEmpty());
        QCOMPARE(model.current().compression.pyramid.recent_ratio, 0.3);
        QVERIFY(model.setValue("sink_tokens", "8"));
        QVERIFY(model.setValue("top_p", "0.9"));
        QVERIFY(model.setValue("policy", "h2o"));
        QVERIFY(model.setValue("max_new_tokens", "64"));
        QVERIFY(!model.hasErrors());
        QCOMPARE(model.current().compression.policy, pyramid::CompressionPolicyKind::H2O);
        QCOMPARE(model.current().maxNewTokens, 64);
        QVERIFY(!model.setValue("no_such_setting", "1"));
    }

    void persistsValidValues()
    {
        QTemporaryDir dir;
        const QString ini = dir.filePath("s.ini");
        ChatStore store(dir.filePath("c.sqlite"));
        {
            QSettings settings(ini, QSettings::IniFormat);
            SettingsModel model(settings, store);
            QVERIFY(model.setValue("temperature", "0.25"));
            QVERIFY(model.setValue("prefill_decay_strategy", "linear"));
            QVERIFY(model.setValue("prompt_format", "raw"));
            QVERIFY(model.setValue("seed", "18446744073709551615"));
            QVERIFY(!model.setValue("gen_compress_ratio", "7"));  // refused: not stored
            QVERIFY(!model.setValue("language", "fr"));           // no translation for it
            QVERIFY(model.setValue("language", "zh_CN"));
            QVERIFY(!model.setValue("device", "tpu"));
            QVERIFY(model.setValue("device", "cpu"));
            QVERIFY(!model.setValue("kv_precision", "q8_0"));
            QVERIFY(model.setValue("kv_precision", "f32"));
        }
        QSettings settings(ini, QSettings::IniFormat);
        QCOMPARE(settings.value(kLanguageSettingKey).toString(), QString("zh_CN"));  // where main.cpp reads them
        QCOMPARE(settings.value(kDeviceSettingKey).toString(), QString("cpu"));
        QCOMPARE(settings.value(kKvPrecisionSettingKey).toString(), QString("f32"));
        SettingsModel model(settings, store);
        QCOMPARE(model.current().sampling.temperature, 0.25f);
        QCOMPARE(model.current().compression.pyramid.prefill_decay_strategy, pyramid::DecaySchedule::Linear);
        QCOMPARE(model.current().promptFormat, pyramid::PromptFormat::Raw);
        QCOMPARE(model.current().kvPrecision, pyramid::KvPrecision::F32);
        QCOMPARE(model.current().sampling.seed, std::numeric_limits<uint64_t>::max());
        QCOMPARE(model.current().compression.pyramid.gen_compress_ratio, pyramid::PyramidSettings{}.gen_compress_ratio);
    }

    // A German user reads and types "0,25"; the settings file keeps "0.25" for any locale.
    void numbersFollowTheLocaleOnScreenOnly()
    {
        const QLocale before;
        QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
        const auto restore = qScopeGuard([&] { QLocale::setDefault(before); });
        QTemporaryDir dir;
        const QString ini = dir.filePath("s.ini");
        ChatStore store(dir.filePath("c.sqlite"));
        {
            QSettings settings(ini, QSettings::IniFormat);
            SettingsModel model(settings, store);
            QVERIFY(model.setValue("temperature", "0,25"));
            QCOMPARE(role(model, "temperature", SettingsModel::TextRole).toString(), QStringLiteral("0,25"));
            QVERIFY(model.setValue("recent_ratio", "0.3"));  // the C form is read too
            QCOMPARE(role(model, "recent_ratio", SettingsModel::TextRole).toString(), QStringLiteral("0,3"));
            QVERIFY(model.setValue("max_new_tokens", "4096"));
            QCOMPARE(role(model, "max_new_tokens", SettingsModel::TextRole).toString(), QStringLiteral("4096"));
        }
        QSettings settings(ini, QSettings::IniFormat);
        QCOMPARE(settings.value("chat/temperature").toString(), QStringLiteral("0.25"));
        QCOMPARE(settings.value("chat/recent_ratio").toString(), QStringLiteral("0.3"));
    }

    void ignoresCorruptStoredSettings()
    {
        QTemporaryDir dir;
        const QString ini = dir.filePath("s.ini");
        {
            QSettings settings(ini, QSettings::IniFormat);
            settings.setValue("chat/recent_ratio", "-4");
            settings.setValue("chat/temperature", "0.5");
            settings.setValue("chat/repetition_penalty", "1e300");  // a double, but no float
            settings.setValue("chat/top_k", "7");
        }
        ChatStore store(dir.filePath("c.sqlite"));
        {
            QSettings settings(ini, QSettings::IniFormat);
            SettingsModel model(settings, store);
            // Each bad value falls back alone; the good ones stay.
            QCOMPARE(model.current().compression.pyramid.recent_ratio, pyramid::PyramidSettings{}.recent_ratio);
            QCOMPARE(model.current().sampling.repetition_penalty, pyramid::SamplingParams{}.repetition_penalty);
            QCOMPARE(model.current().sampling.temperature, 0.5f);
            QCOMPARE(model.current().sampling.top_k, 7);
            QCOMPARE(validateChatSettings(model.current()), QString());
            model.setPromptFormat(pyramid::PromptFormat::Raw);  // as opening a model does: saves every key
        }
        QSettings settings(ini, QSettings::IniFormat);
        SettingsModel model(settings, store);
        QCOMPARE(model.current().sampling.temperature, 0.5f);
        QCOMPARE(model.current().sampling.top_k, 7);
    }

    void presetsAndReset()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath("s.ini"), QSettings::IniFormat);
        ChatStore store(dir.filePath("c.sqlite"));
        SettingsModel model(settings, store);
        QVERIFY(model.presetNames().contains("reference-13b"));
        QVERIFY(!model.setValue("distance_weight", "-1"));
        model.applyPreset("reference-13b");
        const pyramid::CompressionConfig preset = pyramid::compression_preset("reference-13b");
        QCOMPARE(model.current().compression.pyramid.layerwise_downsample_interval,
                 preset.pyramid.layerwise_downsample_interval);
        QCOMPARE(model.current().compression.pyramid.prefill_decay_ratio, preset.pyramid.prefill_decay_ratio);
        QVERIFY(!model.hasErrors());  // a preset replaces every draft

        QVERIFY(model.setValue("temperature", "0"));
        model.resetToDefaults();
        QCOMPARE(model.current().sampling.temperature, pyramid::SamplingParams{}.temperature);
        QCOMPARE(model.current().compression.pyramid.layerwise_downsample_interval,
                 pyramid::PyramidSettings{}.layerwise_downsample_interval);
    }

    void systemPromptIsPerConversation()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath("s.ini"), QSettings::IniFormat);
        ChatStore store(dir.filePath("c.sqlite"));
        SettingsModel model(settings, store);
        const qint64 a = store.createConversation();
        const qint64 b = store.createConversation();
        model.setConversation(a);
        model.setSystemPrompt("You are a pirate.");
        model.setConversation(b);
        QCOMPARE(model.systemPrompt(), QString());
        model.setSystemPrompt("You are a poet.");
        model.setConversation(a);
        QCOMPARE(model.systemPrompt(), QStringLiteral("You are a pirate."));
        QCOMPARE(store.systemPrompt(b), QStringLiteral("You are a poet."));
    }
};

QTEST_GUILESS_MAIN(SettingsTest)
#include "app_settings_test.moc"
