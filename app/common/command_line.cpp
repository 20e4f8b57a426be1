#include "command_line.h"

#include <charconv>
#include <cstdio>
#include <string>

namespace pyramid {

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, const char* tool)
{
    app.set_version_flag("--version", std::string(tool) + " " PYRAMIDCHAT_VERSION);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0)
            return app.exit(e);  // --help, --version
        std::fprintf(stderr, "%s: %s (see --help)\n", tool, e.what());
        return 2;
    }
    return std::nullopt;
}

CLI::Validator whole_number(long long low, long long high)
{
    const std::string range = std::to_string(low) + " to " + std::to_string(high);
    return CLI::Validator(
        [low, high, range](std::string& text) -> std::string {
            long long value = 0;
            const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
            if (error != std::errc() || end != text.data() + text.size())
                return "'" + text.substr(0, 40) + "' is not a whole number";
            if (value < low || value > high)
                return text + " is not in the range " + range;
            return {};
        },
        "[" + range + "]");
}

} // namespace pyramid
