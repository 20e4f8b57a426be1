#include "recall_reference.h"

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "json_field.h"
#include "util/error.h"

namespace pyramid {

std::vector<RecallScore> reference_full_scores(const nlohmann::json& report, const std::string& source,
                                               const std::string& model_path, const std::string& mode,
                                               const std::vector<RecallCaseKey>& cases)
{
    const std::string model = json_field<std::string>(report, "model", source);
    const auto name = [](const std::string& path) { return std::filesystem::path(path).filename().string(); };
    if (name(model) != name(model_path))
        throw Error(fmt::format("{} scored {}, not {}", source, name(model), name(model_path)));
    if (!report.contains("runs") || !report.at("runs").is_array())
        throw Error(fmt::format("{} has no \"runs\" list", source));
    const nlohmann::json* full = nullptr;
    for (const nlohmann::json& run : report.at("runs"))
        if (json_field<std::string>(run, "series", source + " run") == "full" &&
            json_field<std::string>(run, "mode", source + " run") == mode)
            full = &run;
    if (full == nullptr)
        throw Error(fmt::format("{} has no full-cache run in {} mode", source, mode));
    const std::string where = fmt::format("{}, full cache in {} mode", source, mode);
    if (!full->contains("per_case") || !full->at("per_case").is_array())
        throw Error(where + " has no \"per_case\" list");
    std::map<std::string, const nlohmann::json*> by_id;
    for (const nlohmann::json& c : full->at("per_case"))
        by_id[json_field<std::string>(c, "id", where + " case")] = &c;

    std::vector<RecallScore> scores;
    for (const RecallCaseKey& key : cases) {
        const auto found = by_id.find(key.id);
        if (found == by_id.end())
            throw Error(fmt::format("{} did not score case {}", where, key.id));
        const nlohmann::json& c = *found->second;
        const std::string at = fmt::format("{}, case {}", where, key.id);
        const auto tokens = json_field<int>(c, "tokens", at);
        if (tokens != key.tokens)
            throw Error(fmt::format("{} has {} tokens, here {}: another conversation under the same id", at, tokens,
                                    key.tokens));
        RecallScore s;
        s.answer_logprob = json_field<double>(c, "answer_logprob", at);
        s.recalled = json_field<bool>(c, "recalled", at);
        s.kv_bytes = json_field<size_t>(c, "kv_bytes", at);
        s.full_kv_bytes = json_field<size_t>(c, "full_kv_bytes", at);
        scores.push_back(s);
    }
    return scores;
}

} // namespace pyramid
