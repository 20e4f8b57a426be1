#pragma once
// A required field of a JSON document that pyramid-eval reads back (its own reports, joined
// or replayed): missing or of the wrong type, it is a pyramid::Error naming the field and
// where it was looked for, never a nlohmann exception.
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "util/error.h"

namespace pyramid {

template <typename T>
T json_field(const nlohmann::json& object, const char* key, const std::string& where)
{
    if (!object.is_object() || !object.contains(key))
        throw Error(fmt::format("{} has no \"{}\"", where, key));
    try {
        return object.at(key).get<T>();
    } catch (const nlohmann::json::exception&) {
        throw Error(fmt::format("{}: \"{}\" has the wrong type", where, key));
    }
}

} // namespace pyramid
