#include "command_line.h"

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

} // namespace pyramid
