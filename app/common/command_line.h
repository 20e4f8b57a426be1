#pragma once
// Parses a tool's command line as every tool does: --help prints the options and --version
// "<tool> <version>" (exit status 0); a wrong option is named on stderr, with exit status 2.
#include <optional>

#include <CLI/CLI.hpp>

namespace pyramid {

// The exit status when the tool should stop now; nothing when it should go on.
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, const char* tool);

} // namespace pyramid
