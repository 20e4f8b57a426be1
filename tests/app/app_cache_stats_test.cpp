// CacheStatsModel: per-layer rows and totals from GenerationStats, and the controller
// coalescing a fast token stream into a bounded number of panel updates.
#include <QSignalSpy>
#include <QTest>
#include <chrono>

#include "app_test_env.h"
#include "cache_stats_model.h"

namespace {

pyramid::GenerationStats sampleStats()
{
    pyramid::GenerationStats s;
    s.phase = pyramid::GenerationPhase::Decode;
    s.layer_kv_lengths = {200, 150, 90, 40};
    s.layers_compressed = {false, true, true, true};
    s.full_kv_length = 200;
    s.kv_bytes = (200 + 150 + 90 + 40) * 128;
    s.full_kv_bytes = 4 * 200 * 128;
    s.prompt_tokens = 180;
    s.generated_tokens = 20;
    s.context_length = 800;
    s.positions_used = 200;
    s.device = "cpu";
    s.time_to_first_token_ms = 42;
    s.decode_tokens_per_second = 123.5;
    return s;
}

} // namespace

class CacheStatsTest : public QObject {
    Q_OBJECT

private slots:
    void showsLayersAndTotals()
    {
        CacheStatsModel model;
        QVERIFY(!model.hasStats());
        QCOMPARE(model.rowCount(), 0);
        const pyramid::GenerationStats s = sampleStats();
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        model.update(s);
        QCOMPARE(reset.size(), 1);
        QVERIFY(model.hasStats());
        QCOMPARE(model.rowCount(), static_cast<int>(s.layer_kv_lengths.size()));
        for (int layer = 0; layer < model.rowCount(); ++layer) {
            const QModelIndex i = model.index(layer);
            QCOMPARE(model.data(i, CacheStatsModel::LayerRole).toInt(), layer);
            QCOMPARE(model.data(i, CacheStatsModel::LengthRole).toInt(), s.layer_kv_lengths[layer]);
            QCOMPARE(model.data(i, CacheStatsModel::FractionRole).toDouble(),
                     double(s.layer_kv_lengths[layer]) / s.full_kv_length);
            QCOMPARE(model.data(i, CacheStatsModel::CompressedRole).toBool(), bool(s.layers_compressed[layer]));
        }
        QCOMPARE(model.fullLength(), s.full_kv_length);
        QCOMPARE(model.kvBytes(), double(s.kv_bytes));
        QCOMPARE(model.fullKvBytes(), double(s.full_kv_bytes));
        QCOMPARE(model.savingFraction(), 1.0 - double(s.kv_bytes) / double(s.full_kv_bytes));
        QCOMPARE(model.contextFill(), double(s.positions_used) / s.context_length);
        QCOMPARE(model.tokensPerSecond(), s.decode_tokens_per_second);
        QCOMPARE(model.timeToFirstTokenMs(), s.time_to_first_token_ms);
        QVERIFY(model.savingText().contains(QLocale().toString(model.savingFraction() * 100, 'f', 1)));
        QVERIFY(model.speedText().contains(QLocale().toString(s.decode_tokens_per_second, 'f', 1)));
        QVERIFY(model.contextText().contains(QString::number(s.context_length)));
        QVERIFY(model.memoryBytes() > 0);  // this process's resident memory
        QVERIFY(!model.showsDeviceMemory());  // a CPU run: the process's memory is shown
        QCOMPARE(model.memoryLabel(), QStringLiteral("Process memory"));
        QCOMPARE(model.memoryText(), QLocale().formattedDataSize(qint64(model.memoryBytes())));
        QCOMPARE(model.deviceText(), QStringLiteral("cpu"));
        // The entries' bytes against a full cache; the blocks they take beside them when more.
        const QLocale locale;
        const QString entries = QStringLiteral("%1 of %2").arg(locale.formattedDataSize(qint64(s.kv_bytes)),
                                                               locale.formattedDataSize(qint64(s.full_kv_bytes)));
        QCOMPARE(model.kvText(), entries);
        pyramid::GenerationStats in_blocks = s;
        in_blocks.kv_block_bytes = (208 + 160 + 96 + 48) * 128;  // four layers in blocks of 16
        CacheStatsModel blocks_model;
        blocks_model.update(in_blocks);
        QCOMPARE(blocks_model.kvText(), QStringLiteral("%1 (%2 in blocks)")
                                            .arg(entries, locale.formattedDataSize(qint64(in_blocks.kv_block_bytes))));

        // The same layer count updates rows in place (the bars animate, no rebuild).
        pyramid::GenerationStats next = s;
        next.layer_kv_lengths = {201, 151, 91, 41};
        next.full_kv_length = 201;
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.update(next);
        QCOMPARE(reset.size(), 1);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(model.layerLength(3), 41);

        model.clear();
        QVERIFY(!model.hasStats());
        QCOMPARE(model.rowCount(), 0);
    }

    void showsTheGpuAndTheContextPositions()
    {
        CacheStatsModel model;
        QCOMPARE(model.deviceText(), QString());  // nothing ran yet
        pyramid::GenerationStats s = sampleStats();
        // After positions were re-encoded the context holds fewer positions than tokens seen.
        s.positions_used = 600;
        s.context_length = 800;
        s.device = "cuda: NVIDIA H100 80GB HBM3";
        s.device_memory = pyramid::DeviceMemory{size_t(3) << 30, size_t(80) << 30, size_t(2) << 30};
        QSignalSpy memory(&model, &CacheStatsModel::memoryChanged);
        model.update(s);
        QVERIFY(!memory.isEmpty());  // the memory shown came with the stats
        QVERIFY(model.showsDeviceMemory());
        QCOMPARE(model.memoryLabel(), QStringLiteral("GPU memory"));
        const QLocale locale;
        QCOMPARE(model.memoryText(), QStringLiteral("%1 of %2, %3 of it this app's")
                                         .arg(locale.formattedDataSize(qint64(3) << 30),
                                              locale.formattedDataSize(qint64(80) << 30),
                                              locale.formattedDataSize(qint64(2) << 30)));
        QCOMPARE(model.deviceMemoryFraction(), 3.0 / 80.0);
        QCOMPARE(model.deviceText(), QStringLiteral("GPU (CUDA): NVIDIA H100 80GB HBM3"));
        QCOMPARE(model.contextFill(), 600.0 / 800.0);
        QCOMPARE(model.contextText(), QStringLiteral("%1 / %2").arg(locale.toString(600), locale.toString(800)));

        // The GPU's memory describes the device, not the reply: clearing the reply keeps it.
        model.clear();
        QVERIFY(model.showsDeviceMemory());
        QCOMPARE(model.deviceMemoryFraction(), 3.0 / 80.0);
        model.setDeviceMemory(pyramid::DeviceMemory{size_t(40) << 30, size_t(80) << 30, size_t(2) << 30});
        QCOMPARE(model.deviceMemoryFraction(), 0.5);
        model.setDeviceMemory(std::nullopt);  // a model on the host
        QVERIFY(!model.showsDeviceMemory());
        QCOMPARE(model.memoryLabel(), QStringLiteral("Process memory"));
        QCOMPARE(model.deviceMemoryFraction(), 0.0);
        memory.clear();
        model.setDeviceMemory(std::nullopt);
        QVERIFY(memory.isEmpty());  // nothing changed, nothing to redraw
    }

    // Between replies the panel follows the GPU's memory (other programs take and free it),
    // asking the engine on its worker thread: from the moment a model opens, never while a
    // reply runs, and no longer once a model on the host replaces it.
    void theGpuMemoryIsFollowedWhileIdle()
    {
        AppTestEnv env;
        FakeScript script;
        script.deviceMemoryUsed = 1000;
        script.deviceMemoryTotal = 4000;
        FakeChatEngine* engine = nullptr;
        auto app = env.makeReadyApp(&engine, script);
        CacheStatsModel& stats = app->stats();
        QTRY_VERIFY_WITH_TIMEOUT(stats.showsDeviceMemory(), 5000);  // before any reply
        QVERIFY(!stats.hasStats());
        QCOMPARE(stats.deviceMemoryFraction(), 0.25);

        script.deviceMemoryUsed = 3000;  // another program took memory
        engine->setScript(script);
        stats.refreshMemory();  // the panel's timer
        QTRY_COMPARE_WITH_TIMEOUT(stats.deviceMemoryFraction(), 0.75, 5000);

        FakeScript slow = script;
        slow.delay = std::chrono::milliseconds(50);
        engine->setScript(slow);
        QSignalSpy finished(&app->chat(), &ChatController::replyFinished);
        QVERIFY(app->chat().send("Hello there"));
        const int readsBefore = engine->deviceMemoryReads();
        for (int i = 0; i < 5; ++i)
            stats.refreshMemory();
        QVERIFY(finished.wait(5000));
        QCOMPARE(engine->deviceMemoryReads(), readsBefore);  // the reply's statistics carried it

        FakeScript host;
        engine->setScript(host);
        QSignalSpy loaded(&app->models(), &ModelManager::modelChanged);
        app->models().open(env.makeModelFile(QStringLiteral("other.gguf")));
        QVERIFY(loaded.wait(5000));
        QTRY_VERIFY_WITH_TIMEOUT(!stats.showsDeviceMemory(), 5000);
        QCOMPARE(stats.memoryLabel(), QStringLiteral("Process memory"));
    }

    void theControllerForwardsDeviceStats()
    {
        AppTestEnv env;
        FakeScript script;
        script.device = "cuda: test device";
        script.deviceMemoryUsed = 1000;
        script.deviceMemoryTotal = 4000;
        auto app = env.makeReadyApp(nullptr, script);
        QSignalSpy finished(&app->chat(), &ChatController::replyFinished);
        QVERIFY(app->chat().send("Hello there"));
        QVERIFY(finished.wait(10000));
        QCOMPARE(app->stats().deviceText(), QStringLiteral("GPU (CUDA): test device"));
        QCOMPARE(app->stats().deviceMemoryFraction(), 0.25);
        QVERIFY(app->stats().contextFill() > 0);
    }

    // The panel shows the cache of the reply on screen: not another conversation's. A turn
    // refused for a full context leaves the cache, and the panel, as they were; a failed one
    // leaves no numbers.
    void numbersBelongToTheReplyOnScreen()
    {
        AppTestEnv env;
        FakeScript slow;
        slow.delay = std::chrono::milliseconds(100);
        FakeChatEngine* engine = nullptr;
        auto app = env.makeReadyApp(&engine, slow);
        QSignalSpy finished(&app->chat(), &ChatController::replyFinished);
        QVERIFY(app->chat().send("Hello there"));
        QTRY_VERIFY_WITH_TIMEOUT(app->stats().hasStats(), 5000);
        app->conversations().createConversation();  // the reply runs on in the chat left
        QVERIFY(!app->stats().hasStats());
        QVERIFY(finished.wait(5000));
        QVERIFY(!app->stats().hasStats());

        engine->setScript(FakeScript{});
        QVERIFY(app->chat().send("A question"));
        QVERIFY(finished.wait(5000));
        QVERIFY(app->stats().hasStats());
        const int cached = app->stats().fullLength();
        FakeScript refusing;
        refusing.refuseContextFull = true;
        engine->setScript(refusing);
        QVERIFY(app->chat().send("Too long"));
        QVERIFY(finished.wait(5000));
        QVERIFY(!app->chat().error().isEmpty());
        QVERIFY(app->stats().hasStats());
        QCOMPARE(app->stats().fullLength(), cached);

        // A reply that failed before it had a cache shows no numbers: not the previous reply's,
        // whose cache the engine may have let go.
        FakeScript failing;
        failing.replyError = "no memory";
        failing.failAtOnce = true;
        engine->setScript(failing);
        QVERIFY(app->chat().send("Again"));
        QVERIFY(finished.wait(5000));
        QVERIFY(app->chat().error().contains("no memory"));
        QVERIFY(!app->stats().hasStats());
        const qint64 here = app->conversations().currentId();
        app->conversations().createConversation();
        app->conversations().setCurrentId(here);
        QVERIFY(!app->stats().hasStats());  // nor when the conversation is shown again
    }

    // Issue 38, item 5: the engine's English description of the CPU is said in the user's words.
    void theDeviceIsDescribedInTheUsersLanguage()
    {
        CacheStatsModel model;
        pyramid::GenerationStats s = sampleStats();
        s.device = "cpu: 2 threads, f16 KV cache";
        model.update(s);
        QCOMPARE(model.deviceText(), QStringLiteral("CPU, 2 threads, f16 KV cache"));
        s.device = "cpu: 1 threads, f32 KV cache";
        model.update(s);
        QCOMPARE(model.deviceText(), QStringLiteral("CPU, 1 thread, f32 KV cache"));
        s.device = "vulkan: something new";  // a form the app does not know is shown as it comes
        model.update(s);
        QCOMPARE(model.deviceText(), QStringLiteral("vulkan: something new"));
    }

    // Issue 38, item 3: while the prompt is read the panel says so, not the last reply's "Finished".
    void readingThePromptIsSaid()
    {
        AppTestEnv env;
        FakeScript slow;
        slow.delay = std::chrono::milliseconds(50);
        auto app = env.makeReadyApp(nullptr, slow);
        QSignalSpy finished(&app->chat(), &ChatController::replyFinished);
        QVERIFY(app->chat().send("First"));
        QVERIFY(finished.wait(5000));
        QCOMPARE(app->stats().phaseText(), QStringLiteral("Finished"));
        QVERIFY(app->chat().send("Second"));
        QCOMPARE(app->stats().phaseText(), QStringLiteral("Reading the prompt"));  // before the engine says anything
        QTRY_COMPARE_WITH_TIMEOUT(app->stats().phaseText(), QStringLiteral("Generating"), 5000);
        QVERIFY(finished.wait(5000));
        QCOMPARE(app->stats().phaseText(), QStringLiteral("Finished"));
    }

    // Issue 38, item 3: each conversation's panel comes back with it, after a switch and after
    // a restart: its context fill, its pyramid, "Finished".
    void eachConversationsNumbersComeBack()
    {
        AppTestEnv env;
        QString context;
        std::vector<int> layers;
        qint64 first = 0;
        {
            auto app = env.makeReadyApp();
            QSignalSpy finished(&app->chat(), &ChatController::replyFinished);
            first = app->conversations().currentId();
            QVERIFY(app->chat().send("Tell me something"));
            QVERIFY(finished.wait(5000));
            context = app->stats().contextText();
            QVERIFY(context != QStringLiteral("–"));
            for (int layer = 0; layer < app->stats().rowCount(); ++layer)
                layers.push_back(app->stats().layerLength(layer));
            QVERIFY(!layers.empty());

            app->conversations().createConversation();
            QVERIFY(!app->stats().hasStats());  // a new chat has no reply yet
            QCOMPARE(app->stats().phaseText(), QStringLiteral("No reply yet"));
            app->conversations().setCurrentId(first);
            QCOMPARE(app->stats().contextText(), context);
            QCOMPARE(app->stats().phaseText(), QStringLiteral("Finished"));
        }
        auto app = env.makeReadyApp();  // a restart, which opens the model again
        QCOMPARE(app->conversations().currentId(), first);
        QVERIFY(app->stats().hasStats());
        QCOMPARE(app->stats().contextText(), context);
        QCOMPARE(app->stats().phaseText(), QStringLiteral("Finished"));
        QCOMPARE(app->stats().rowCount(), int(layers.size()));
        for (int layer = 0; layer < app->stats().rowCount(); ++layer)
            QCOMPARE(app->stats().layerLength(layer), layers[layer]);
    }

    // Issue 38 (look): the reply's KV memory over its tokens, for the chart above the pyramid:
    // one point per update, in token order, ending where the reply ended; a new reply starts
    // afresh, and a conversation shown again from the store has no course to draw.
    void theReplysMemoryIsFollowed()
    {
        AppTestEnv env;
        FakeScript script;
        script.pieces.assign(12, " x");
        script.delay = std::chrono::milliseconds(40);
        auto app = env.makeReadyApp(nullptr, script);
        QSignalSpy finished(&app->chat(), &ChatController::replyFinished);
        QVERIFY(app->chat().send("Count the memory"));
        QCOMPARE(app->stats().kvHistory().size(), 0);  // reading the prompt: nothing yet
        QVERIFY(finished.wait(5000));
        const QVariantList history = app->stats().kvHistory();
        QVERIFY2(history.size() >= 3, qPrintable(QString::number(history.size())));
        for (qsizetype i = 1; i < history.size(); ++i)
            QVERIFY(history[i].toMap()["tokens"].toInt() >= history[i - 1].toMap()["tokens"].toInt());
        const QVariantMap last = history.last().toMap();
        QCOMPARE(last["kv"].toDouble(), app->stats().kvBytes());
        QCOMPARE(last["full"].toDouble(), app->stats().fullKvBytes());
        QVERIFY(last["kv"].toDouble() < last["full"].toDouble());  // PyramidInfer keeps less

        QVERIFY(app->chat().send("Again"));
        QCOMPARE(app->stats().kvHistory().size(), 0);
        QVERIFY(finished.wait(5000));
        const qint64 here = app->conversations().currentId();
        app->conversations().createConversation();
        app->conversations().setCurrentId(here);
        QVERIFY(app->stats().hasStats());
        QCOMPARE(app->stats().kvHistory().size(), 0);
    }

    void fastStreamsAreCoalesced()
    {
        AppTestEnv env;
        FakeScript script;
        script.pieces.assign(400, " x");
        script.delay = std::chrono::milliseconds(1);
        auto app = env.makeReadyApp(nullptr, script);
        QSignalSpy panelUpdates(&app->stats(), &CacheStatsModel::changed);
        QSignalSpy textUpdates(&app->messages(), &QAbstractItemModel::dataChanged);
        QSignalSpy finished(&app->chat(), &ChatController::replyFinished);
        const auto start = std::chrono::steady_clock::now();
        QVERIFY(app->chat().send("Go"));
        QVERIFY(finished.wait(10000));
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        // At most one update per 33 ms (plus "Reading the prompt" at the start, the first and the
        // final one), never one per token.
        const int bound = static_cast<int>(seconds / 0.033) + 4;
        QVERIFY2(panelUpdates.size() <= bound, qPrintable(QString("%1 > %2").arg(panelUpdates.size()).arg(bound)));
        QVERIFY2(textUpdates.size() <= bound, qPrintable(QString("%1 > %2").arg(textUpdates.size()).arg(bound)));
        QVERIFY(panelUpdates.size() < static_cast<int>(script.pieces.size()) / 2);
        QCOMPARE(app->messages().at(1).text.size(), static_cast<int>(2 * script.pieces.size()));

        // The panel ends on the final statistics: the fake's pyramid for this prompt.
        const pyramid::ChatRequest request = [&] {
            pyramid::ChatRequest r;
            r.conversation.messages.push_back({pyramid::ChatRole::User, "Go"});
            return r;
        }();
        const int full = FakeChatEngine::promptTokens(request) + static_cast<int>(script.pieces.size());
        QCOMPARE(app->stats().fullLength(), full);
        QCOMPARE(app->stats().rowCount(), script.layers);
        for (int layer = 0; layer < script.layers; ++layer)
            QCOMPARE(app->stats().layerLength(layer),
                     FakeChatEngine::layerLength(pyramid::CompressionPolicyKind::Pyramid, layer, script.layers, full));
    }
};

QTEST_GUILESS_MAIN(CacheStatsTest)
#include "app_cache_stats_test.moc"
