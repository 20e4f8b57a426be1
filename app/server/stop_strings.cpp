#include "stop_strings.h"

#include <algorithm>

namespace pyramid::server {

StopStrings::StopStrings(std::vector<std::string> stops) : stops_(std::move(stops)) {}

std::string StopStrings::put(std::string_view text)
{
    if (stopped_)
        return {};
    held_ += text;
    size_t first = std::string::npos;
    for (const std::string& stop : stops_)
        first = std::min(first, held_.find(stop));
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
