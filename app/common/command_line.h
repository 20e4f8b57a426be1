#pragma once
// Parses a tool's command line as every tool does: --help prints the options and --version
// "<tool> <version>" (exit status 0); a wrong option is named on stderr, with exit status 2.
#include <optional>

#include <CLI/CLI.hpp>

namespace pyramid {

// The exit status when the tool should stop now; nothing when it should go on.
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, const char* tool);

// A whole number from `low` to `high`: "abc" is "not a whole number", "0" is "not in the
// range 1 to 1048576" (CLI::Range says "Value abc not in range" for both).
CLI::Validator whole_number(long long low, long long high);

} // namespace pyramid
