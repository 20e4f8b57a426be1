// The tools' KV-cache compression flags (app/common/engine_options.h) parsed by CLI11 and
// resolved into the core's CompressionConfig: each flag lands in the setting it names (the
// PyramidInfer options in PyramidSettings, the SnapKV/PyramidKV ones in CompressionConfig, which
// share the words "observation window" and "pooling kernel"), presets and --config keep their
// policy unless --policy names one, and a bad value is refused naming the setting.
#include <QTest>

#include <CLI/CLI.hpp>

#include "engine_options.h"
#include "kv/compression_presets.h"
#include "util/error.h"

using pyramid::CompressionConfig;
using pyramid::CompressionOptions;
using pyramid::CompressionPolicyKind;

namespace {

// Parses `args` as a tool with `default_policy` would and resolves every policy.
std::vector<CompressionConfig> resolve_all(std::vector<std::string> args, const std::string& default_policy = "pyramid",
                                           bool several = false, const std::string& default_preset = {})
{
    CLI::App app;
    CompressionOptions options(default_policy, several, default_preset);
    options.add_to(app);
    args.insert(args.begin(), "tool");
    std::vector<const char*> argv;
    for (const std::string& a : args)
        argv.push_back(a.c_str());
    app.parse(static_cast<int>(argv.size()), argv.data());
    return options.resolve_all();
}

CompressionConfig resolve(const std::vector<std::string>& args, const std::string& default_policy = "pyramid")
{
    return resolve_all(args, default_policy).front();
}

} // namespace

class CompressionOptionsTest : public QObject {
    Q_OBJECT

private slots:
    void withoutFlagsTheDefaultPolicyHasTheCoresDefaults()
    {
        const CompressionConfig config = resolve({});
        const CompressionConfig defaults;
        QCOMPARE(config.policy, CompressionPolicyKind::Pyramid);
        QCOMPARE(config.pyramid.prefill_decay_ratio, defaults.pyramid.prefill_decay_ratio);
        QCOMPARE(config.pyramid.observation_window, 0);  // the whole recent window: the paper's rule
        QCOMPARE(config.pyramid.pooling_kernel, 1);
        QVERIFY(!config.pyramid.keep_hidden_states);
        QCOMPARE(resolve({}, "snapkv").policy, CompressionPolicyKind::SnapKV);
    }

    void pyramidOptionsSetPyramidInfersSettingsOnly()
    {
        const CompressionConfig config = resolve(
            {"--pyramid-observation-window", "32", "--pyramid-pooling-kernel", "7", "--keep-hidden-states"});
        QCOMPARE(config.pyramid.observation_window, 32);
        QCOMPARE(config.pyramid.pooling_kernel, 7);
        QVERIFY(config.pyramid.keep_hidden_states);
        // SnapKV's window and kernel keep their own defaults.
        QCOMPARE(config.observation_window, CompressionConfig{}.observation_window);
        QCOMPARE(config.pooling_kernel, CompressionConfig{}.pooling_kernel);
    }

    void snapkvOptionsSetTheBaselinesSettingsOnly()
    {
        const CompressionConfig config = resolve({"--policy", "snapkv", "--observation-window", "16",
                                                  "--pooling-kernel", "5", "--budget-fraction", "0.5",
                                                  "--kv-selection", "per-head"});
        QCOMPARE(config.policy, CompressionPolicyKind::SnapKV);
        QCOMPARE(config.observation_window, 16);
        QCOMPARE(config.pooling_kernel, 5);
        QCOMPARE(config.budget_fraction, 0.5);
        QCOMPARE(config.kv_selection, pyramid::KvSelection::PerHead);
        QCOMPARE(config.pyramid.observation_window, 0);
        QCOMPARE(config.pyramid.pooling_kernel, 1);
    }

    void pyramidKnobsLandWhereTheyAreNamed()
    {
        const CompressionConfig config =
            resolve({"--recent-ratio", "0.1", "--decay-ratio", "0.5", "--decay-strategy", "linear", "--min-context",
                     "32", "--sink-tokens", "2", "--distance-weight", "1.5", "--interval", "2", "--gen-decay-ratio",
                     "0.3", "--gen-compress-ratio", "0.8", "--chunk", "8"});
        const pyramid::PyramidSettings& p = config.pyramid;
        QCOMPARE(p.recent_ratio, 0.1);
        QCOMPARE(p.prefill_decay_ratio, 0.5);
        QCOMPARE(p.prefill_decay_strategy, pyramid::DecaySchedule::Linear);
        QCOMPARE(p.min_context_length, 32);
        QCOMPARE(p.sink_tokens, 2);
        QCOMPARE(p.distance_weight, 1.5);
        QCOMPARE(p.layerwise_downsample_interval, 2);
        QCOMPARE(p.gen_decay_ratio, 0.3);
        QCOMPARE(p.gen_compress_ratio, 0.8);
        QCOMPARE(p.exceed_length_to_compress, 8);
    }

    void aPresetKeepsItsPolicyUnlessPolicyIsNamed()
    {
        const CompressionConfig balanced = resolve({"--preset", "balanced"});
        QCOMPARE(balanced.policy, pyramid::compression_preset("balanced").policy);
        QCOMPARE(balanced.budget_fraction, pyramid::compression_preset("balanced").budget_fraction);
        // --policy overrides the preset's policy and keeps the rest of its settings.
        const CompressionConfig overridden = resolve({"--preset", "balanced", "--policy", "local"});
        QCOMPARE(overridden.policy, CompressionPolicyKind::Local);
        QCOMPARE(overridden.budget_fraction, balanced.budget_fraction);
        // A knob given beside a preset wins over the preset's value.
        QCOMPARE(resolve({"--preset", "reference-7b", "--decay-ratio", "0.5"}).pyramid.prefill_decay_ratio, 0.5);
    }

    // pyramid-cli starts from a chat's preset (recall): without flags it is that preset; a
    // preset, a config or --policy named on the command line take its place as they would
    // the core's defaults.
    void aDefaultPresetIsThePresetWithoutTheOption()
    {
        const auto chat = [](const std::vector<std::string>& args) {
            return resolve_all(args, "pyramid", false, pyramid::kChatCompressionPreset).front();
        };
        QVERIFY(chat({}) == pyramid::chat_compression());
        QCOMPARE(chat({}).pyramid.observation_window, 32);
        QVERIFY(chat({"--preset", "reference-7b"}) == CompressionConfig{});
        QVERIFY(chat({"--preset", "balanced"}) == pyramid::compression_preset("balanced"));
        QCOMPARE(chat({"--policy", "full"}).policy, CompressionPolicyKind::Full);
        QCOMPARE(chat({"--pyramid-observation-window", "16"}).pyramid.observation_window, 16);
        QCOMPARE(chat({"--pyramid-observation-window", "16"}).pyramid.pooling_kernel, 7);
    }

    void severalPoliciesShareTheKnobs()
    {
        const auto configs =
            resolve_all({"--policy", "full,pyramid,snapkv", "--budget-fraction", "0.75"}, "pyramid", true);
        QCOMPARE(configs.size(), size_t{3});
        QCOMPARE(configs[0].policy, CompressionPolicyKind::Full);
        QCOMPARE(configs[1].policy, CompressionPolicyKind::Pyramid);
        QCOMPARE(configs[2].policy, CompressionPolicyKind::SnapKV);
        for (const CompressionConfig& c : configs)
            QCOMPARE(c.budget_fraction, 0.75);
        // A preset alone resolves to its one policy, not to the tool's default list.
        QCOMPARE(resolve_all({"--preset", "max-saving"}, "full,pyramid", true).size(), size_t{1});
    }

    void badValuesAreRefusedNamingTheSetting_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("named");
        QTest::newRow("even pyramid kernel") << QStringList{"--pyramid-pooling-kernel", "4"}
                                             << "pyramid_pooling_kernel";
        QTest::newRow("negative pyramid window") << QStringList{"--pyramid-observation-window", "-1"}
                                                 << "pyramid_observation_window";
        QTest::newRow("even snapkv kernel") << QStringList{"--policy", "snapkv", "--pooling-kernel", "2"}
                                            << "pooling_kernel";
        QTest::newRow("per-head pyramid") << QStringList{"--kv-selection", "per-head"} << "kv_selection";
        QTest::newRow("fraction above one") << QStringList{"--policy", "h2o", "--budget-fraction", "1.5"}
                                            << "budget_fraction";
        QTest::newRow("unknown preset") << QStringList{"--preset", "fastest"} << "fastest";
        QTest::newRow("unknown strategy") << QStringList{"--decay-strategy", "cubic"} << "cubic";
    }

    void badValuesAreRefusedNamingTheSetting()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, named);
        std::vector<std::string> argv;
        for (const QString& a : args)
            argv.push_back(a.toStdString());
        try {
            resolve(argv);
            QFAIL("resolved");
        } catch (const pyramid::Error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(named), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(CompressionOptionsTest)
#include "test_compression_options.moc"
