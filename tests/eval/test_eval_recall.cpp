// Recall scoring (core/eval/recall_eval.h) on the default chat model: the pieces extend mode
// feeds are the conversation a rebuild prefills, a full cache scores both modes alike, a
// fact stated a few hundred tokens earlier is recalled, and `pyramid-eval recall` reports it,
// reading the full cache back from its own JSON when asked.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include <nlohmann/json.hpp>

#include "chat/prompt_format.h"
#include "eval/recall_eval.h"
#include "model/model.h"
#include "shared_data.h"
#include "util/error.h"

using namespace pyramid;

namespace {

const char* kFiller =
    "The committee met again on Tuesday to review the budget for the coming year, and the discussion went on "
    "for most of the afternoon without any clear result. ";

RecallCase locker_case()
{
    RecallCase c;
    c.id = "locker";
    std::string article;
    for (int i = 0; i < 6; ++i)
        article += kFiller;
    article += "Maya Novak's locker number is 4817. ";
    for (int i = 0; i < 6; ++i)
        article += kFiller;
    c.conversation.messages = {{ChatRole::User, "Read this.\n\n" + article + "\n\nWhat is it about?"},
                               {ChatRole::Assistant, "It is about a committee meeting."},
                               {ChatRole::User, "What is Maya Novak's locker number?"}};
    c.lead_in = "Maya Novak's locker number is";
    c.answer = " 4817";
    return c;
}

// The locker case as a line of a cases file, under `id`.
void write_cases(const QString& path, const std::string& id)
{
    const RecallCase c = locker_case();
    nlohmann::json messages = nlohmann::json::array();
    for (const ChatMessage& m : c.conversation.messages)
        messages.push_back({{"role", m.role == ChatRole::User ? "user" : "assistant"}, {"content", m.text}});
    std::ofstream out(path.toStdString());
    out << nlohmann::json{{"id", id}, {"messages", messages}, {"lead_in", c.lead_in}, {"answer", c.answer},
                          {"fact", "number"}}.dump()
        << "\n\n";
}

nlohmann::json read_json(const QString& path)
{
    std::ifstream in(path.toStdString());
    return nlohmann::json::parse(in);
}

// Runs `pyramid-eval recall --model MODEL ARGS...` to its end (five minutes at most).
bool run_recall(QProcess& process, const std::filesystem::path& model, const QStringList& args)
{
    process.start(QStringLiteral(PYRAMID_EVAL_EXE),
                  QStringList{"recall", "--model", QString::fromStdString(model.string())} + args);
    return process.waitForFinished(300000);
}

} // namespace

class EvalRecallTest : public QObject {
    Q_OBJECT
private slots:
    void pieces_are_the_conversation()
    {
        PYRAMID_REQUIRE_DEFAULT_MODEL(path);
        auto model = Model::open(path, BackendPreference::Cpu);
        const ChatTemplate chat(model->tokenizer(), PromptFormat::ChatML);
        RecallCase c = locker_case();
        const RecallTokens t = recall_tokens(chat, model->tokenizer(), c);
        QCOMPARE(t.prompts.size(), size_t(2));
        QCOMPARE(t.replies.size(), size_t(1));
        std::vector<int32_t> fed;
        for (size_t i = 0; i < t.prompts.size(); ++i) {
            fed.insert(fed.end(), t.prompts[i].begin(), t.prompts[i].end());
            if (i < t.replies.size())
                fed.insert(fed.end(), t.replies[i].begin(), t.replies[i].end());
        }
        QCOMPARE(fed, chat.conversation(c.conversation));
        QCOMPARE(model->tokenizer().decode(t.answer), std::string(" 4817").substr(0));

        RecallCase bad = c;
        bad.conversation.messages.pop_back();  // ends with the assistant
        QVERIFY_THROWS_EXCEPTION(Error, recall_tokens(chat, model->tokenizer(), bad));
        bad = c;
        bad.answer.clear();
        QVERIFY_THROWS_EXCEPTION(Error, recall_tokens(chat, model->tokenizer(), bad));
    }

    void full_cache_recalls_in_both_modes()
    {
        PYRAMID_REQUIRE_DEFAULT_MODEL(path);
        auto model = Model::open(path, BackendPreference::Cpu);
        const ChatTemplate chat(model->tokenizer(), PromptFormat::ChatML);
        const RecallTokens t = recall_tokens(chat, model->tokenizer(), locker_case());
        const CompressionConfig full = CompressionConfig::full_cache();
        const RecallScore extend = score_recall(model->backend(), full, t, RecallMode::Extend);
        const RecallScore rebuild = score_recall(model->backend(), full, t, RecallMode::Rebuild);
        QVERIFY2(extend.recalled, qPrintable(QString::number(extend.answer_logprob)));
        // Extend reads earlier replies a token at a time, rebuild as one prompt: on AVX512-VNNI
        // those take kernels that sum in different orders, and a difference in the last bits
        // can move an activation's int8 rounding; 2.4e-3 nats measured, 1e-3 before them.
        QVERIFY2(std::abs(extend.answer_logprob - rebuild.answer_logprob) < 1e-2,
                 qPrintable(QString("extend %1, rebuild %2").arg(extend.answer_logprob).arg(rebuild.answer_logprob)));
        QCOMPARE(extend.kv_bytes, extend.full_kv_bytes);

        // Keeping only the newest entries (local, a budget far below the fact's distance) must
        // cost the answer probability: the scoring sees what the cache lost.
        CompressionConfig local;
        local.policy = CompressionPolicyKind::Local;
        local.layer_budgets.assign(static_cast<size_t>(model->config().n_layers), 48);
        const RecallScore forgotten = score_recall(model->backend(), local, t, RecallMode::Rebuild);
        QVERIFY(forgotten.kv_bytes < extend.kv_bytes / 4);
        QVERIFY2(forgotten.answer_logprob < extend.answer_logprob - 1.0,
                 qPrintable(QStringLiteral("%1 vs %2").arg(forgotten.answer_logprob).arg(extend.answer_logprob)));
    }

    void the_tool_reports_each_case()
    {
        PYRAMID_REQUIRE_DEFAULT_MODEL(path);
        QTemporaryDir dir;
        const QString cases = dir.filePath("cases.jsonl");
        write_cases(cases, "a");
        const QString json = dir.filePath("recall.json");
        QProcess process;
        QVERIFY(run_recall(process, path, {"--cases", cases, "--policy", "snapkv", "--budget-fraction", "0.5",
                                           "--mode", "extend,rebuild", "--json", json}));
        QCOMPARE(process.exitCode(), 0);
        const QString table = QString::fromUtf8(process.readAllStandardOutput());
        QVERIFY2(table.contains("| full | extend | 1/1 (100.0%)"), qPrintable(table));
        const auto result = read_json(json);
        QCOMPARE(result.at("runs").size(), size_t(4));  // full and snapkv, in both modes
        const auto& snap = result.at("runs").at(1);
        QCOMPARE(snap.at("policy").get<std::string>(), std::string("snapkv"));
        QVERIFY(snap.at("kv_fraction").get<double>() < 0.6);
        QCOMPARE(snap.at("per_case").at(0).at("meta").at("fact").get<std::string>(), std::string("number"));

        // With that file as the reference the full cache is read, not scored: the same numbers
        // in both modes, and the run says where they came from.
        const QString again = dir.filePath("again.json");
        QVERIFY(run_recall(process, path, {"--cases", cases, "--policy", "local", "--budget-fraction", "0.5",
                                           "--mode", "extend,rebuild", "--reference", json, "--json", again}));
        QCOMPARE(process.exitCode(), 0);
        const auto reread = read_json(again);
        QCOMPARE(reread.at("runs").size(), size_t(4));
        for (size_t run : {size_t(0), size_t(2)}) {
            const auto& full = reread.at("runs").at(run);
            QCOMPARE(full.at("series").get<std::string>(), std::string("full"));
            QCOMPARE(full.at("reference").get<std::string>(), json.toStdString());
            QCOMPARE(full.at("per_case"), result.at("runs").at(run).at("per_case"));
        }
        QVERIFY(!reread.at("runs").at(1).contains("reference"));

        // A reference that did not score these cases is refused before any scoring.
        const QString other = dir.filePath("other.jsonl");
        write_cases(other, "b");
        QVERIFY(run_recall(process, path, {"--cases", other, "--policy", "local", "--mode", "extend",
                                           "--reference", json}));
        QCOMPARE(process.exitCode(), 2);
        const QString refused = QString::fromUtf8(process.readAllStandardError());
        QVERIFY2(refused.contains("did not score case b"), qPrintable(refused));

        // Nor is one whose full cache held other bytes: it was scored in float32, this run's
        // cache is fp16, and its numbers would not be this run's full cache.
        QVERIFY(run_recall(process, path, {"--cases", cases, "--policy", "local", "--mode", "extend",
                                           "--kv-type", "f16", "--reference", json}));
        QCOMPARE(process.exitCode(), 4);
        const QString other_type = QString::fromUtf8(process.readAllStandardError());
        QVERIFY2(other_type.contains("scored with another KV type"), qPrintable(other_type));
    }
};

QTEST_GUILESS_MAIN(EvalRecallTest)
#include "test_eval_recall.moc"
