#pragma once
// OpenAI's `stop`: generation ends before the first of these strings, which the reply does
// not include. A stop string can arrive split over several tokens, so a streamed reply holds
// back the text that might be the start of one until the next tokens show whether it is:
//
//     put("Hello wor") -> "Hello wor", put("ld\n\nUs") -> "ld" (holds "\n\nUs"),
//     put("er:") -> "" and stopped()           with stop = {"\n\nUser:"}
//
// The concatenation of what put() and finish() return is the reply up to the stop string that
// is complete first (the one that ends first; of two that end together, the longer), or all of
// it, whatever the split into pieces.
#include <string>
#include <string_view>
#include <vector>

namespace pyramid::server {

class StopStrings {
public:
    explicit StopStrings(std::vector<std::string> stops);

    // Adds generated text; returns what can be shown now. Once a stop string is complete,
    // returns the text before it and stopped() is true; text put after that is dropped.
    std::string put(std::string_view text);
    // At the end of a reply that met no stop string: the text still held back.
    std::string finish();
    bool stopped() const { return stopped_; }

private:
    std::vector<std::string> stops_;
    std::string held_;
    bool stopped_ = false;
};

} // namespace pyramid::server
