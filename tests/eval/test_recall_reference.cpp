// reference_full_scores (app/eval/recall_reference.h): the full cache's scores are read back
// case by case in the order asked for, and a file of another model, mode, case set or
// conversation is refused with a message naming what differs.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "recall_reference.h"
#include "util/error.h"

using namespace pyramid;

namespace {

nlohmann::json per_case(const std::string& id, int tokens, double logprob, bool recalled)
{
    return {{"id", id}, {"tokens", tokens}, {"answer_logprob", logprob}, {"recalled", recalled},
            {"kv_bytes", 1000 + tokens}, {"full_kv_bytes", 1000 + tokens}};
}

nlohmann::json report()
{
    nlohmann::json full_extend = {{"series", "full"}, {"mode", "extend"},
                                  {"per_case", {per_case("a", 300, -0.5, true), per_case("b", 400, -7.0, false)}}};
    nlohmann::json full_rebuild = {{"series", "full"}, {"mode", "rebuild"},
                                   {"per_case", {per_case("a", 300, -0.4, true), per_case("b", 400, -6.0, false)}}};
    nlohmann::json snap = {{"series", "snapkv"}, {"mode", "extend"}, {"per_case", {per_case("a", 300, -9.0, false)}}};
    return {{"model", "/somewhere/else/SmolLM2.gguf"}, {"cases", "c.jsonl"}, {"runs", {snap, full_extend, full_rebuild}}};
}

QString refusal(const nlohmann::json& file, const std::string& model, const std::string& mode,
                const std::vector<RecallCaseKey>& keys)
{
    try {
        reference_full_scores(file, "ref.json", model, mode, keys);
    } catch (const Error& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class RecallReferenceTest : public QObject {
    Q_OBJECT
private slots:
    void scores_come_back_in_the_order_asked()
    {
        const auto scores = reference_full_scores(report(), "ref.json", "/models/SmolLM2.gguf", "rebuild",
                                                  {{"b", 400}, {"a", 300}});
        QCOMPARE(scores.size(), size_t(2));
        QCOMPARE(scores[0].answer_logprob, -6.0);
        QVERIFY(!scores[0].recalled);
        QCOMPARE(scores[0].kv_bytes, size_t(1400));
        QCOMPARE(scores[1].answer_logprob, -0.4);
        QVERIFY(scores[1].recalled);
        QCOMPARE(scores[1].full_kv_bytes, size_t(1300));
        // A subset of the file's cases is fine: runs are often made on a slice of them.
        QCOMPARE(reference_full_scores(report(), "ref.json", "SmolLM2.gguf", "extend", {{"b", 400}})[0].answer_logprob,
                 -7.0);
    }

    void another_file_is_refused()
    {
        const std::vector<RecallCaseKey> keys{{"a", 300}};
        QVERIFY(refusal(report(), "other.gguf", "extend", keys).contains("scored SmolLM2.gguf, not other.gguf"));
        QVERIFY(refusal(report(), "SmolLM2.gguf", "extend", {{"c", 10}}).contains("did not score case c"));
        QVERIFY(refusal(report(), "SmolLM2.gguf", "extend", {{"a", 301}}).contains("has 300 tokens, here 301"));

        nlohmann::json extend_only = report();
        extend_only["runs"].erase(2);
        QVERIFY(refusal(extend_only, "SmolLM2.gguf", "rebuild", keys).contains("no full-cache run in rebuild mode"));

        nlohmann::json no_logprob = report();
        no_logprob["runs"][1]["per_case"][0].erase("answer_logprob");
        QVERIFY(refusal(no_logprob, "SmolLM2.gguf", "extend", keys).contains("has no \"answer_logprob\""));

        nlohmann::json wrong_type = report();
        wrong_type["runs"][1]["per_case"][0]["recalled"] = "yes";
        QVERIFY(refusal(wrong_type, "SmolLM2.gguf", "extend", keys).contains("\"recalled\" has the wrong type"));

        QVERIFY(refusal(nlohmann::json::array(), "SmolLM2.gguf", "extend", keys).contains("has no \"model\""));
        QVERIFY(refusal({{"model", "SmolLM2.gguf"}}, "SmolLM2.gguf", "extend", keys).contains("no \"runs\" list"));
    }
};

QTEST_GUILESS_MAIN(RecallReferenceTest)
#include "test_recall_reference.moc"
