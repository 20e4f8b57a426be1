#include "command_line.h"

#include <cstdio>

namespace pyramid {

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, const char* tool)
{
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "%s: %s (see --help)\n", tool, e.what());
        return 2;
    }
    return std::nullopt;
}

} // namespace pyramid
