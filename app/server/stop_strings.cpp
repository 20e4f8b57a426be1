#include "stop_strings.h"

#include <algorithm>

namespace pyramid::server {

StopStrings::StopStrings(std::vector<std::string> stops) : stops_(std::move(stops)) {}

std::string StopStrings::put(std::string_view text)
{
    if (stopped_)
        return {};
    held_ += text;
    // The stop string that is complete first (ends first; of two that end together, the longer),
    // as generation would meet it token by token.
    size_t first = std::string::npos, first_end = std::string::npos;
    for (const std::string& stop : stops_) {
        const size_t at = held_.find(stop);
        if (at != std::string::npos && (at + stop.size() < first_end || (at + stop.size() == first_end && at < first))) {
            first = at;
            first_end = at + stop.size();
        }
    }
    if (first != std::string::npos) {
        stopped_ = true;
        std::string shown = held_.substr(0, first);
        held_.clear();
        return shown;
    }
    // Hold the longest end of the text that is the beginning of a stop string.
    size_t hold = 0;
    for (const std::string& stop : stops_)
        for (size_t n = std::min(stop.size() - 1, held_.size()); n > hold; --n)
            if (held_.compare(held_.size() - n, n, stop, 0, n) == 0) {
                hold = n;
                break;
            }
    std::string shown = held_.substr(0, held_.size() - hold);
    held_.erase(0, held_.size() - hold);
    return shown;
}

std::string StopStrings::finish()
{
    std::string rest = std::move(held_);
    held_.clear();
    return rest;
}

} // namespace pyramid::server
